/**
 * Issue 23 (CPU per notification): the Play Developer API client is built once per service
 * account (deployed, each new client mints a new OAuth access token: an RSA signature and a call
 * to Google's token endpoint), and a client is never used with another account's credentials: a
 * rotated or different service account gets its own client at once.
 */
import { readPlaySubscription } from '../../functions/src/rails/google/playApi';
import { createRailEdges } from '../../functions/src/rails/edges';
import type { SecretStore } from '../../functions/src/secrets/store';
import { GoogleFake, nextPurchaseToken, playPurchase } from './support/googleFake';

let google: GoogleFake;
beforeAll(async () => {
  google = await new GoogleFake().start();
});
afterAll(async () => {
  await google.stop();
});

const account = (email: string) => JSON.stringify({ type: 'service_account', client_email: email });
const config = { packageName: 'com.example.android', serviceAccountRef: 'play-service-account' };

/** Ports whose secret store answers `current.value`, and whose auth records each account it builds credentials for. */
function ports(current: { value: string }) {
  const built: string[] = [];
  const rails = createRailEdges({
    google: {
      playRootUrl: google.playRootUrl,
      playAuth: async (serviceAccountJson) => {
        built.push((JSON.parse(serviceAccountJson) as { client_email: string }).client_email);
        return `key-for-${built.length}`;
      },
    },
  });
  const secrets = { read: async () => current.value } as unknown as SecretStore;
  return { deps: { secrets, rails }, built };
}

describe('Play API client per service account', () => {
  it('builds credentials once for repeated reads with one service account', async () => {
    const current = { value: account('reader@one.iam.gserviceaccount.com') };
    const { deps, built } = ports(current);
    for (let i = 0; i < 3; i += 1) {
      const token = nextPurchaseToken();
      google.purchases.set(token, playPurchase({ productId: 'pro_monthly' }));
      expect(await readPlaySubscription(deps, 'proj_a', config, token)).toMatchObject({ subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE' });
    }
    expect(built).toEqual(['reader@one.iam.gserviceaccount.com']);
  });

  it('a rotated or different service account never reuses another account’s client', async () => {
    const current = { value: account('reader@one.iam.gserviceaccount.com') };
    const { deps, built } = ports(current);
    const token = nextPurchaseToken();
    google.purchases.set(token, playPurchase({}));
    await readPlaySubscription(deps, 'proj_a', config, token);
    current.value = account('reader@two.iam.gserviceaccount.com');
    await readPlaySubscription(deps, 'proj_b', config, token);
    expect(built).toEqual(['reader@one.iam.gserviceaccount.com', 'reader@two.iam.gserviceaccount.com']);
    // Same account JSON again: its own client, no new credentials.
    current.value = account('reader@one.iam.gserviceaccount.com');
    await readPlaySubscription(deps, 'proj_a', config, token);
    expect(built).toHaveLength(2);
  });

  it('credentials that cannot be built are not kept: the next read tries again', async () => {
    const current = { value: account('reader@flaky.iam.gserviceaccount.com') };
    let attempts = 0;
    const rails = createRailEdges({
      google: {
        playRootUrl: google.playRootUrl,
        playAuth: async () => {
          attempts += 1;
          if (attempts === 1) throw new Error('token endpoint unreachable');
          return 'key-after-retry';
        },
      },
    });
    const deps = { secrets: { read: async () => current.value } as unknown as SecretStore, rails };
    const token = nextPurchaseToken();
    google.purchases.set(token, playPurchase({}));
    await expect(readPlaySubscription(deps, 'proj_a', config, token)).rejects.toThrow('token endpoint unreachable');
    expect(await readPlaySubscription(deps, 'proj_a', config, token)).toMatchObject({ subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE' });
    expect(attempts).toBe(2);
  });
});
