/**
 * store/transactionRetry.ts: a transaction that lost to a concurrent one (ABORTED, or the
 * emulator's deadlock victim `3 INVALID_ARGUMENT: Transaction is invalid or closed`) runs again;
 * any other error, the caller's own included, propagates at once; it gives up after 8 rounds.
 */
import { isLostTransaction } from '../../functions/src/store/contention';
import { retryingTransaction } from '../../functions/src/store/transactionRetry';

const storeError = (code: number, message: string) => Object.assign(new Error(message), { code });
const victim = () => storeError(3, '3 INVALID_ARGUMENT: Transaction is invalid or closed');

it('recognises a lost transaction, and nothing else', () => {
  expect(isLostTransaction(storeError(10, '10 ABORTED: Transaction lock timeout'))).toBe(true);
  expect(isLostTransaction(victim())).toBe(true);
  expect(isLostTransaction(storeError(3, '3 INVALID_ARGUMENT: Value for argument "data" is not a valid Firestore document'))).toBe(false);
  expect(isLostTransaction(storeError(6, 'ALREADY_EXISTS'))).toBe(false);
  expect(isLostTransaction(new Error('refused'))).toBe(false);
  expect(isLostTransaction(null)).toBe(false);
});

it('runs a lost transaction again until it completes', async () => {
  let attempts = 0;
  const result = await retryingTransaction(async () => {
    attempts += 1;
    if (attempts < 3) throw attempts === 1 ? victim() : storeError(10, 'ABORTED');
    return 'committed';
  });
  expect([result, attempts]).toEqual(['committed', 3]);
});

it('propagates any other error at once', async () => {
  let attempts = 0;
  const own = new Error('the caller refused');
  await expect(
    retryingTransaction(async () => {
      attempts += 1;
      throw own;
    }),
  ).rejects.toBe(own);
  expect(attempts).toBe(1);
});

it('gives up after 8 rounds with the last error', async () => {
  let attempts = 0;
  await expect(
    retryingTransaction(async () => {
      attempts += 1;
      throw victim();
    }),
  ).rejects.toThrow(/Transaction is invalid or closed/);
  expect(attempts).toBe(8);
});

it('takes the caller\'s own rule of what is retryable', async () => {
  let attempts = 0;
  const result = await retryingTransaction(
    async () => {
      attempts += 1;
      if (attempts === 1) throw storeError(6, 'ALREADY_EXISTS');
      return attempts;
    },
    (err) => (err as { code?: number }).code === 6,
  );
  expect(result).toBe(2);
});
