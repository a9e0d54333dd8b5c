import type { androidpublisher_v3 } from '@googleapis/androidpublisher';
import type { GoogleRailConfig } from '../config';
import type { RailReadPorts } from '../edges';

/**
 * The subscription as the Play Developer API reports it now (`purchases.subscriptionsv2.get`),
 * with the project's service account from the secret store. Null when Play does not know the
 * token (404, or 410 for a purchase long expired); other failures throw so the push is retried.
 */
export type PlaySubscription = androidpublisher_v3.Schema$SubscriptionPurchaseV2;

export async function readPlaySubscription(deps: RailReadPorts, projectId: string, config: GoogleRailConfig, purchaseToken: string): Promise<PlaySubscription | null> {
  const serviceAccount = await deps.secrets.read(projectId, config.serviceAccountRef);
  const edges = deps.rails.google;
  const { androidpublisher } = await import('@googleapis/androidpublisher');
  const client = androidpublisher({ version: 'v3', auth: await edges.playAuth(serviceAccount), ...(edges.playRootUrl ? { rootUrl: edges.playRootUrl } : {}) });
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
