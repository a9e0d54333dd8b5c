import type { DocumentSnapshot, Firestore, Transaction } from 'firebase-admin/firestore';
import { DomainError } from '../errors/domain';
import { projectRef } from '../projects/paths';
import { getProject } from '../projects/repository';
import type { EnvScope } from '../store/scope';
import { storedRecord } from '../store/converters';

/**
 * What happens when a verified purchase of one person's subscription is presented for another
 * customer (modelled on RevenueCat's restore behaviour), per project (both environments), at
 * `projects/{p}/settings/subscriptionTransfer`, set by `tessera subscription-transfer set`:
 *
 * - `keep` (the default): the subscription stays with its owner; the other customer gets nothing
 *   of it and learns nothing of the owner.
 * - `transfer`: the subscription (its record and grants) moves to the customer the purchase was
 *   presented for; audited as `customer.subscription_transferred` and sent as that webhook.
 *
 * Why `keep` by default (RevenueCat's default for new projects is to transfer): a signed App
 * Store transaction proves the store account owns the purchase, not which app user is asking,
 * and a transaction token is a bearer token that can be replayed from another device, so moving
 * a paid subscription between two people is a choice the developer makes knowingly. An erased
 * owner keeps no claim whatever the setting (rails/decision.ts).
 */
export type TransferBehavior = 'keep' | 'transfer';

export const TRANSFER_BEHAVIORS: readonly TransferBehavior[] = ['keep', 'transfer'];
export const DEFAULT_TRANSFER_BEHAVIOR: TransferBehavior = 'keep';

export interface TransferSetting {
  behavior: TransferBehavior;
  updatedAt: number;
}

export const SUBSCRIPTION_TRANSFER_SETTING = 'subscriptionTransfer';

/** Partial: a setting written by hand may lack fields; anything unreadable is the default. */
const transferSettingConverter = storedRecord<Partial<TransferSetting>>();

const settingRef = (db: Firestore, projectId: string) =>
  projectRef(db, projectId).collection('settings').doc(SUBSCRIPTION_TRANSFER_SETTING).withConverter(transferSettingConverter);

/** The project's behaviour, read in the caller's transaction (only when an owner is contested). */
export async function transferBehaviorIn(tx: Transaction, scope: EnvScope): Promise<TransferBehavior> {
  return behaviorOf(await tx.get(scope.projectSettingRef(SUBSCRIPTION_TRANSFER_SETTING).withConverter(transferSettingConverter)));
}

export async function readTransferBehavior(db: Firestore, projectId: string): Promise<TransferBehavior> {
  return behaviorOf(await settingRef(db, projectId).get());
}

/** The stored behaviour; anything but an explicit `transfer` (no document included) is the default. */
function behaviorOf(snapshot: DocumentSnapshot<Partial<TransferSetting>>): TransferBehavior {
  return snapshot.data()?.behavior === 'transfer' ? 'transfer' : DEFAULT_TRANSFER_BEHAVIOR;
}

/** `tessera subscription-transfer set --project ID --behavior keep|transfer`. */
export async function setTransferBehavior(db: Firestore, projectId: string, behavior: string, now: number): Promise<TransferSetting> {
  await getProject(db, projectId);
  if (!TRANSFER_BEHAVIORS.includes(behavior as TransferBehavior)) throw new DomainError('invalid_argument', '--behavior must be keep or transfer.');
  const setting: TransferSetting = { behavior: behavior as TransferBehavior, updatedAt: now };
  await settingRef(db, projectId).set(setting);
  return setting;
}
