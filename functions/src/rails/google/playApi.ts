import { createHash } from 'node:crypto';
import type { androidpublisher_v3 } from '@googleapis/androidpublisher';
import type { GoogleRailConfig } from '../config';
import type { RailEdges, RailReadPorts } from '../edges';
import { BoundedMap } from '../../boundedMap';

/**
 * The subscription as the Play Developer API reports it now (`purchases.subscriptionsv2.get`),
 * with the project's service account from the secret store. Null when Play does not know the
 * token (404, or 410 for a purchase long expired); other failures throw so the push is retried.
 */
export type PlaySubscription = androidpublisher_v3.Schema$SubscriptionPurchaseV2;

export async function readPlaySubscription(deps: RailReadPorts, projectId: string, config: GoogleRailConfig, purchaseToken: string): Promise<PlaySubscription | null> {
  const serviceAccount = await deps.secrets.read(projectId, config.serviceAccountRef);
  const client = await playClient(deps.rails.google, serviceAccount);
  try {
    // Node's own fetch: gaxios would otherwise load node-fetch through a dynamic ESM import.
    const response = await client.purchases.subscriptionsv2.get({ packageName: config.packageName, token: purchaseToken }, { retry: false, fetchImplementation: fetch });
    return response.data;
  } catch (err) {
    const status = (err as { status?: unknown; code?: unknown }).status ?? (err as { code?: unknown }).code;
    if (status === 404 || status === 410 || status === '404' || status === '410') return null;
    throw err;
  }
}

type PlayClient = androidpublisher_v3.Androidpublisher;

/**
 * One API client per service account (by the SHA-256 of its JSON, as read from the secret store
 * now: a rotated account gets a new client at once) and per set of edges. Built per
 * notification, each would mint a fresh OAuth access token (an RSA signature and a call to
 * Google's token endpoint); kept, Google's auth library reuses its token until it expires.
 */
const PLAY_CLIENT_LIMIT = 32;
const playClients = new WeakMap<RailEdges['google'], BoundedMap<string, Promise<PlayClient>>>();

function playClient(edges: RailEdges['google'], serviceAccount: string): Promise<PlayClient> {
  let clients = playClients.get(edges);
  if (!clients) playClients.set(edges, (clients = new BoundedMap(PLAY_CLIENT_LIMIT)));
  const key = createHash('sha256').update(serviceAccount).digest('hex');
  let client = clients.get(key);
  if (!client) {
    client = buildPlayClient(edges, serviceAccount);
    clients.set(key, client);
    // A client that could not be built is not kept: the next notification tries again.
    const built = client;
    built.catch(() => clients.get(key) === built && clients.delete(key));
  }
  return client;
}

async function buildPlayClient(edges: RailEdges['google'], serviceAccount: string): Promise<PlayClient> {
  const { androidpublisher } = await import('@googleapis/androidpublisher');
  return androidpublisher({ version: 'v3', auth: await edges.playAuth(serviceAccount), ...(edges.playRootUrl ? { rootUrl: edges.playRootUrl } : {}) });
}
