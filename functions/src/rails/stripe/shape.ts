import { describeJsonProblem, findJsonProblem } from '../../wire/jsonShape';
import { isUsableDocId } from '../../store/ids';
import { fieldObject } from './objects';

/**
 * Why a verified Stripe body cannot be used as an event, or null when it can: Stripe signs
 * whatever bytes it sends, so a signature proves the sender, not the shape.
 */
export function stripeEventProblem(payload: unknown): string | null {
  const event = fieldObject(payload);
  if (!event) return 'malformed_event: the body is not an event object';
  const shapeProblem = findJsonProblem(event);
  if (shapeProblem) return `malformed_event: ${describeJsonProblem(shapeProblem)}`;
  if (!isUsableDocId(event.id)) return 'malformed_event: `id` is missing or not a usable event id';
  if (typeof event.type !== 'string' || event.type === '' || event.type.length > 200) return 'malformed_event: `type` is missing or not a string';
  if (typeof event.created !== 'number' || !Number.isFinite(event.created)) return 'malformed_event: `created` is missing or not a number';
  if (typeof event.livemode !== 'boolean') return 'malformed_event: `livemode` is missing or not a boolean';
  if (!fieldObject(fieldObject(event.data)?.object)) return 'malformed_event: `data.object` is missing or not an object';
  return null;
}
