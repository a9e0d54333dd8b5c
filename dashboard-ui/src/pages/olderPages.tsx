import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api';
import { ErrorBox, asFailure } from '../ui';
import type { ApiFailure } from '../api';

/**
 * A newest-first list the server pages (a customer's audit trail, its events): the first page
 * comes with the customer; "Show older" appends the next page from the previous page's cursor.
 */
export function OlderPages<T>(props: { first: T[]; firstCursor: string | null; path: string; label: string; children: (items: T[]) => ComponentChildren }) {
  const [items, setItems] = useState<T[]>(props.first);
  const [cursor, setCursor] = useState<string | null>(props.firstCursor);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiFailure | null>(null);
  // A reload of the customer (after a grant, a revoke) brings a new first page: start over from it.
  useEffect(() => {
    setItems(props.first);
    setCursor(props.firstCursor);
    setError(null);
  }, [props.first, props.firstCursor]);
  const more = async () => {
    if (!cursor) return;
    setBusy(true);
    setError(null);
    try {
      const page = await call<{ data: T[]; nextCursor: string | null }>('GET', `${props.path}?cursor=${encodeURIComponent(cursor)}`);
      setItems([...items, ...page.data]);
      setCursor(page.nextCursor);
    } catch (err) {
      setError(asFailure(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {props.children(items)}
      <ErrorBox error={error} />
      {cursor && (
        <button type="button" disabled={busy} onClick={more} aria-label={`Show older ${props.label}`}>
          {busy ? 'Loading…' : 'Show older'}
        </button>
      )}
    </>
  );
}
