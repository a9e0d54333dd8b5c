import { useState } from 'preact/hooks';
import { inProject } from '../api';
import { linkTo, type PageProps } from '../context';
import { navigate } from '../router';
import { Field, Show, Time, useResource } from '../ui';
import type { PublicAuditEntry as AuditEntry } from '../../../functions/src/wire/entitlements';
export type { AuditEntry };


/** Audit entries: who (operator or surface), what, why. */
export function AuditTable({ entries, page }: { entries: AuditEntry[]; page: Pick<PageProps, 'projectId' | 'env'> }) {
  if (entries.length === 0) return <p class="empty">No audit entries.</p>;
  return (
    <table aria-label="Audit entries">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Event</th>
          <th scope="col">Decision</th>
          <th scope="col">Actor</th>
          <th scope="col">Reason</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr data-event-id={e.eventId}>
            <td>
              <Time ms={e.processedAt} />
            </td>
            <td>
              <a href={linkTo(page, 'audit', e.eventId)}>{e.eventType}</a>
            </td>
            <td>{e.decision}</td>
            <td>{actorOf(e)}</td>
            <td>{e.reason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const actorOf = (e: AuditEntry): string => String(e.details.operator ?? e.details.surface ?? e.rail);

export function AuditPage(props: PageProps) {
  const eventId = props.args[0] ?? null;
  const [input, setInput] = useState(eventId ?? '');
  const [entry] = useResource<AuditEntry>(eventId ? inProject(props.projectId, props.env, `/audit/${encodeURIComponent(eventId)}`) : null);
  return (
    <section>
      <form
        class="card inline-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (input.trim()) navigate({ projectId: props.projectId, env: props.env, page: 'audit', args: [input.trim()] });
        }}
      >
        <Field label="Audit event id" hint="e.g. srv_grant_…, evt_… (Stripe), a notification UUID">
          {(id) => <input id={id} value={input} required maxLength={200} onInput={(e) => setInput(e.currentTarget.value)} />}
        </Field>
        <button type="submit">Look up</button>
      </form>
      <CustomerEntries {...props} />
      {eventId && (
        <Show resource={entry}>
          {(e) => (
            <article class="card" aria-label={`Audit entry ${e.eventId}`}>
              <h2>{e.eventType}</h2>
              <dl class="facts">
                <dt>Event id</dt>
                <dd>
                  <code>{e.eventId}</code>
                </dd>
                <dt>When</dt>
                <dd>
                  <Time ms={e.processedAt} />
                </dd>
                <dt>Environment</dt>
                <dd>{e.env}</dd>
                <dt>Actor</dt>
                <dd>{actorOf(e)}</dd>
                <dt>Customer</dt>
                <dd>{e.customerId ? <a href={linkTo(props, 'customers', e.customerId)}>{e.customerId}</a> : '—'}</dd>
                <dt>Decision</dt>
                <dd>
                  {e.decision} ({e.fromState ?? '—'} → {e.toState ?? '—'})
                </dd>
                <dt>Reason</dt>
                <dd>{e.reason}</dd>
              </dl>
              <h3>Details</h3>
              <pre class="json">{JSON.stringify(e.details, null, 2)}</pre>
            </article>
          )}
        </Show>
      )}
    </section>
  );
}

/** A customer's audit entries (newest first), from the customer's record in this environment. */
function CustomerEntries(props: PageProps) {
  const [input, setInput] = useState('');
  const [customerId, setCustomerId] = useState<string | null>(null);
  const [customer] = useResource<{ audit: AuditEntry[] }>(customerId ? inProject(props.projectId, props.env, `/customers/${encodeURIComponent(customerId)}`) : null);
  return (
    <div class="card">
      <form
        class="inline-form"
        aria-label="A customer’s audit entries"
        onSubmit={(e) => {
          e.preventDefault();
          setCustomerId(input.trim() || null);
        }}
      >
        <Field label="Customer id" hint="cdcust_… — every audit entry about the customer in this environment.">
          {(id) => <input id={id} value={input} required pattern="cdcust_[A-Za-z0-9_-]+" onInput={(e) => setInput(e.currentTarget.value)} />}
        </Field>
        <button type="submit">Show entries</button>
      </form>
      {customerId && <Show resource={customer}>{(c) => <AuditTable entries={c.audit} page={props} />}</Show>}
    </div>
  );
}
