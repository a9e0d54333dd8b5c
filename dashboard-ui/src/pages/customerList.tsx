import { useState } from 'preact/hooks';
import { inProject } from '../api';
import { linkTo, type PageProps } from '../context';
import { Field, Show, Time, useResource } from '../ui';
import type { CustomerListPageWire as ListPage } from '../../../functions/src/wire/dashboard';

/**
 * The customer list: newest first, a page at a time, with filters the API answers from indexes
 * (dashboard/customerList.ts). Filters that one index cannot combine come back as the API's
 * 400, shown as its message.
 */


interface Filters {
  status: string;
  createdFrom: string;
  createdTo: string;
  entitlement: string;
  rail: string;
  emailPrefix: string;
  userIdPrefix: string;
}

const NO_FILTERS: Filters = { status: '', createdFrom: '', createdTo: '', entitlement: '', rail: '', emailPrefix: '', userIdPrefix: '' };
const PAGE_SIZE = 25;
const DAY_MS = 86_400_000;

/** The list's query string: days are UTC, `createdTo` inclusive of its whole day. */
export function listQuery(filters: Filters, cursor: string | null): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filters.status) params.set('status', filters.status);
  if (filters.createdFrom) params.set('createdFrom', String(Date.parse(`${filters.createdFrom}T00:00:00Z`)));
  if (filters.createdTo) params.set('createdTo', String(Date.parse(`${filters.createdTo}T00:00:00Z`) + DAY_MS - 1));
  for (const name of ['entitlement', 'rail', 'emailPrefix', 'userIdPrefix'] as const) if (filters[name].trim()) params.set(name, filters[name].trim());
  if (cursor) params.set('cursor', cursor);
  return params.toString();
}

export function CustomerList(props: PageProps) {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  // The cursors of the pages before this one (the first page has none).
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors[cursors.length - 1];
  const [page] = useResource<ListPage>(inProject(props.projectId, props.env, `/customer-list?${listQuery(applied, cursor)}`));
  const set = (name: keyof Filters) => (e: Event) => setDraft({ ...draft, [name]: (e.currentTarget as HTMLInputElement).value });
  const apply = (filters: Filters) => {
    setApplied(filters);
    setCursors([null]);
  };
  return (
    <section class="customer-list" aria-label="Customers">
      <h2>Customers</h2>
      <form
        aria-label="Filter customers"
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
      >
        <Field label="Status">
          {(id) => (
            <select id={id} value={draft.status} onChange={set('status')}>
              <option value="">any</option>
              <option value="active">active</option>
              <option value="erasure_pending">erasure pending</option>
              <option value="erased">erased</option>
              <option value="merged">merged</option>
            </select>
          )}
        </Field>
        <Field label="Created from">{(id) => <input id={id} type="date" value={draft.createdFrom} onInput={set('createdFrom')} />}</Field>
        <Field label="Created to">{(id) => <input id={id} type="date" value={draft.createdTo} onInput={set('createdTo')} />}</Field>
        <Field label="Entitlement">{(id) => <input id={id} value={draft.entitlement} onInput={set('entitlement')} maxLength={128} placeholder="pro" />}</Field>
        <Field label="Rail">
          {(id) => (
            <select id={id} value={draft.rail} onChange={set('rail')}>
              <option value="">any</option>
              <option value="stripe">stripe</option>
              <option value="apple">apple</option>
              <option value="google">google</option>
              <option value="manual">manual</option>
            </select>
          )}
        </Field>
        <Field label="Email starts with">{(id) => <input id={id} value={draft.emailPrefix} onInput={set('emailPrefix')} maxLength={256} />}</Field>
        <Field label="User id starts with">{(id) => <input id={id} value={draft.userIdPrefix} onInput={set('userIdPrefix')} maxLength={256} />}</Field>
        <button type="submit">Apply</button>
        <button
          type="button"
          onClick={() => {
            setDraft(NO_FILTERS);
            apply(NO_FILTERS);
          }}
        >
          Clear
        </button>
      </form>
      <p class="muted">Newest first. Entitlement and rail filters stand alone; an email search combines with status only; a user id search with nothing else.</p>
      <Show resource={page} empty={(p) => p.data.length === 0 && cursors.length === 1} emptyText={`No ${props.env} customer matches these filters.`}>
        {(p) => (
          <>
            <table aria-label="Customer list">
              <thead>
                <tr>
                  <th scope="col">Customer</th>
                  <th scope="col">Email</th>
                  <th scope="col">User ids</th>
                  <th scope="col">Rails</th>
                  <th scope="col">Entitlements</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {p.data.map((r) => (
                  <tr data-customer-id={r.customerId}>
                    <td>
                      <a href={linkTo(props, 'customers', r.customerId)}>{r.customerId}</a>
                    </td>
                    <td>{r.email ?? '—'}</td>
                    <td>{r.userIds.join(', ') || '—'}</td>
                    <td>{r.rails.join(', ') || '—'}</td>
                    <td>{r.entitlements.map((e) => `${e.key} (${e.rail})`).join(', ') || '—'}</td>
                    <td>
                      <span class={`state state-${r.status}`}>{r.status}</span>
                    </td>
                    <td>
                      <Time ms={r.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <nav class="pager" aria-label="Customer list pages">
              <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
                Previous page
              </button>
              <span class="muted">Page {cursors.length}</span>
              <button type="button" disabled={!p.hasMore} onClick={() => setCursors([...cursors, p.nextCursor])}>
                Next page
              </button>
            </nav>
          </>
        )}
      </Show>
    </section>
  );
}
