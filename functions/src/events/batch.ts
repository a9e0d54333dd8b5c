/** An event batch as the events schema (events/http/ingestRoute.ts) admits it, before normalisation. */
/** One event as its schema admits it; `level`, `tags` and `categoryTags` are soft-dropped later when malformed. */
export interface RawEvent {
  name: string;
  eventId?: string | null;
  timestamp?: number | null;
  properties?: Record<string, unknown> | null;
  developerUserId?: string | null;
  anonymousId?: string | null;
  serviceCustomerId?: string | null;
  level?: unknown;
  tags?: unknown;
  categoryTags?: unknown;
}

export interface EventsBody {
  events: RawEvent[];
  appId?: string | null;
  environment?: 'sandbox' | 'production' | null;
  /** Observed, never enforced (validation.ts). */
  sdk?: unknown;
  envelopeVersion?: unknown;
}
