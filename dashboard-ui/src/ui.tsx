import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, call } from './api';

/** Shared pieces: data loading with loading / empty / error states, times, forms, one-time secrets. */

export type Resource<T> = { state: 'loading' } | { state: 'error'; error: ApiFailure } | { state: 'ready'; data: T };

/**
 * Loads `path` (null: nothing to load). A new path shows the loading state at once — data of a
 * previous path (another environment's) is never shown while the new one loads.
 */
export function useResource<T>(path: string | null): [Resource<T>, () => void] {
  const [resource, setResource] = useState<Resource<T> & { path?: string | null }>({ state: 'loading', path });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    if (path === null) return;
    let live = true;
    // A reload of the same path keeps showing its data until the new answer arrives (forms below
    // keep their state); a different path (another environment, customer, …) starts from loading.
    setResource((current) => (current.path === path && current.state === 'ready' ? current : { state: 'loading', path }));
    call<T>('GET', path).then(
      (data) => live && setResource({ state: 'ready', data, path }),
      (error: unknown) => live && setResource({ state: 'error', error: asFailure(error), path }),
    );
    return () => {
      live = false;
    };
  }, [path, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  // Guard against a render between the path change and the effect: never show another path's data.
  if (resource.path !== path) return [{ state: 'loading' }, reload];
  return [resource, reload];
}

export const asFailure = (error: unknown): ApiFailure => (error instanceof ApiFailure ? error : new ApiFailure(String((error as Error)?.message ?? error), 0, 'client', null));

export function Show<T>(props: { resource: Resource<T>; empty?: (data: T) => boolean; emptyText?: string; children: (data: T) => ComponentChildren }) {
  const { resource } = props;
  if (resource.state === 'loading') return <Loading />;
  if (resource.state === 'error') return <ErrorBox error={resource.error} />;
  if (props.empty?.(resource.data)) return <p class="empty">{props.emptyText ?? 'Nothing here yet.'}</p>;
  return <>{props.children(resource.data)}</>;
}

export const Loading = () => (
  <p class="loading" role="status" aria-live="polite">
    Loading…
  </p>
);

export function ErrorBox({ error }: { error: ApiFailure | null }) {
  if (!error) return null;
  return (
    <div class="error" role="alert">
      <strong>{error.status ? `${error.status} ${error.code}` : 'Error'}:</strong> {error.message}
      {error.requestId && <span class="request-id"> (request {error.requestId})</span>}
    </div>
  );
}

const localFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A time in the operator's zone, with UTC on hover. */
export function Time({ ms }: { ms: number | null | undefined }) {
  if (ms === null || ms === undefined) return <span class="muted">—</span>;
  const date = new Date(ms);
  return (
    <time dateTime={date.toISOString()} title={`${date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`}>
      {localFormat.format(date)}
    </time>
  );
}

let fieldIds = 0;
export function Field(props: { label: string; hint?: string; children: (id: string) => ComponentChildren }) {
  const id = useRef(`f${++fieldIds}`).current;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children(id)}
      {props.hint && <small class="hint">{props.hint}</small>}
    </div>
  );
}

/** Runs a change; shows its error; disables the form while it runs. */
export function useAction<A extends unknown[], R>(run: (...args: A) => Promise<R>): { busy: boolean; error: ApiFailure | null; act: (...args: A) => Promise<R | undefined>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  const act = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      return await run(...args);
    } catch (err) {
      setError(asFailure(err));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, act, clear: () => setError(null) };
}

/** A secret shown once: the operator copies it now; it is never shown again. */
export function OnceSecret({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  return (
    <div class="once-secret" role="alert">
      <p>
        <strong>{label}</strong> — shown once. Copy it now; it cannot be shown again.
      </p>
      <code class="secret-value" data-testid="once-secret">
        {value}
      </code>
      <button type="button" onClick={() => navigator.clipboard?.writeText(value)}>
        Copy
      </button>{' '}
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
    </div>
  );
}

export const AuditLink = ({ eventId, base }: { eventId: string | null | undefined; base: string }) =>
  eventId ? (
    <a class="audit-link" href={`${base}/${encodeURIComponent(eventId)}`}>
      audit {eventId}
    </a>
  ) : null;

/** The graces both rotations accept (an API key's and a webhook endpoint's signing secret). */
const GRACES = [
  ['1h', '1 hour'],
  ['24h', '24 hours'],
  ['7d', '7 days'],
  ['0', 'None — the old one stops now'],
] as const;
export type Grace = (typeof GRACES)[number][0];

/** How long a rotated credential keeps working; `defaultGrace` is the server's default for that rotation, marked as such. */
export function GraceSelect(props: { label: string; hideLabel?: boolean; defaultGrace: Grace; value: string; onChange: (grace: string) => void }) {
  return (
    <label>
      <span class={props.hideLabel ? 'visually-hidden' : undefined}>{props.label}</span>{' '}
      <select value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {GRACES.map(([value, text]) => (
          <option value={value}>{value === props.defaultGrace ? `${text} (default)` : text}</option>
        ))}
      </select>
    </label>
  );
}
