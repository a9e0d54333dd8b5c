/**
 * Guarantee of clearing the emulator between bench scenarios (local/clearStore.ts; issue 11,
 * item 7): background work is drained before the clear, a clear the emulator refuses with 409
 * (locks still held) is retried a bounded number of times with the work drained again, and any
 * other failure — or the last refusal — is reported instead of hanging. (Pure logic: clearing
 * the suite's shared emulator would wipe the other test files' data.)
 */
import { resetStore } from '../../functions/src/local/clearStore';
import { EmulatorResetError } from '../../functions/src/local/emulator';

describe('resetStore (unit)', () => {
  it('drains, then retries a 409 until the clear succeeds', async () => {
    const calls: string[] = [];
    let refusals = 2;
    await resetStore({
      drain: async () => void calls.push('drain'),
      clear: async () => {
        calls.push('clear');
        if (refusals-- > 0) throw new EmulatorResetError(409, 'Transaction lock timeout');
      },
      pauseMs: () => 0,
    });
    expect(calls).toEqual(['drain', 'clear', 'drain', 'clear', 'drain', 'clear']);
  });

  it('gives up after the bounded number of attempts with the emulator’s error', async () => {
    let clears = 0;
    const refusing = resetStore({
      drain: async () => undefined,
      clear: async () => {
        clears += 1;
        throw new EmulatorResetError(409, 'Transaction lock timeout');
      },
      attempts: 3,
      pauseMs: () => 0,
    });
    await expect(refusing).rejects.toThrow('emulator reset failed: 409 Transaction lock timeout');
    expect(clears).toBe(3);
  });

  it('does not retry other failures', async () => {
    let clears = 0;
    const failing = resetStore({
      drain: async () => undefined,
      clear: async () => {
        clears += 1;
        throw new EmulatorResetError(500, 'boom');
      },
      pauseMs: () => 0,
    });
    await expect(failing).rejects.toThrow('emulator reset failed: 500 boom');
    expect(clears).toBe(1);
  });
});
