import type { DocumentData, DocumentReference, WriteBatch } from 'firebase-admin/firestore';
import type { EnvScope } from '../store/scope';
import { WRITE_BATCH_BYTES, WRITE_BATCH_OPERATIONS } from './limits';

/**
 * Groups writes into as few commits as Firestore allows: a commit is sent when the next write
 * would push it past the request-size or operation limit. Commits go through the scope.
 */
export class BatchWriter {
  private batch: WriteBatch | null = null;
  private bytes = 0;
  private operations = 0;

  constructor(private readonly scope: EnvScope) {}

  async set(ref: DocumentReference, data: DocumentData, payloadBytes: number): Promise<void> {
    await this.makeRoom(payloadBytes);
    this.current().set(ref, data);
    this.count(payloadBytes);
  }

  async delete(ref: DocumentReference): Promise<void> {
    await this.makeRoom(0);
    this.current().delete(ref);
    this.count(0);
  }

  async flush(): Promise<void> {
    if (!this.batch) return;
    const batch = this.batch;
    this.batch = null;
    this.bytes = 0;
    this.operations = 0;
    await this.scope.commit(batch);
  }

  private async makeRoom(payloadBytes: number): Promise<void> {
    if (this.operations + 1 > WRITE_BATCH_OPERATIONS || (this.operations > 0 && this.bytes + payloadBytes > WRITE_BATCH_BYTES)) {
      await this.flush();
    }
  }

  private current(): WriteBatch {
    this.batch ??= this.scope.batch();
    return this.batch;
  }

  private count(payloadBytes: number): void {
    this.bytes += payloadBytes + 1024;
    this.operations += 1;
  }
}
