import { useState } from 'preact/hooks';
import { call, inProject } from '../api';
import { linkTo, type PageProps } from '../context';
import { navigate } from '../router';
import { AuditLink, ErrorBox, Field, Show, Time, useAction, useResource } from '../ui';
import { AuditTable, type AuditEntry } from './audit';
import { CustomerList } from './customerList';
import { OlderPages } from './olderPages';
import type { CustomerView as Customer, ErasureQueued, GrantChange, RecentEventWire as RecentEvent } from '../../../functions/src/wire/dashboard';



export function CustomersPage(props: PageProps) {
  const customerId = props.args[0] ?? null;
  return (
    <section>
      <Search {...props} />
      {customerId && <CustomerDetail key={customerId} page={props} customerId={customerId} />}
    </section>
  );
}

function Search(props: PageProps) {
  const [query, setQuery] = useState('');
  const [submitted, setSubmitted] = useState<string | null>(null);
  const [results] = useResource<{ customerId: string; matchedBy: string }[]>(submitted ? inProject(props.projectId, props.env, `/customers?q=${encodeURIComponent(submitted)}`) : null);
  return (
    <div class="card">
      <form
        role="search"
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setSubmitted(query.trim() || null);
        }}
      >
        <Field label="Find a customer" hint="A cdcust_ id, a user id, an anonymous id or an email (exact).">
          {(id) => <input id={id} type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} required maxLength={256} />}
        </Field>
        <button type="submit">Search</button>
      </form>
      {!submitted && !props.args[0] && <CustomerList {...props} />}
      {submitted && (
        <Show resource={results} empty={(r) => r.length === 0} emptyText={`No ${props.env} customer matches “${submitted}”.`}>
          {(list) => (
            <ul class="results" aria-label="Matching customers">
              {list.map((r) => (
                <li>
                  <a href={linkTo(props, 'customers', r.customerId)}>{r.customerId}</a> <span class="muted">matched by {r.matchedBy}</span>
                </li>
              ))}
            </ul>
          )}
        </Show>
      )}
    </div>
  );
}

function CustomerDetail({ page, customerId }: { page: PageProps; customerId: string }) {
  const [detail, reload] = useResource<Customer>(inProject(page.projectId, page.env, `/customers/${encodeURIComponent(customerId)}`));
  return (
    <Show resource={detail}>
      {(c) => (
        <>
          <article class="card" aria-label={`Customer ${customerId}`}>
            <h2>
              {c.customer.customerId} <span class={`state state-${c.customer.status}`}>{c.customer.status}</span>
            </h2>
            <p class="muted">
              Created <Time ms={c.customer.createdAt} /> · email {c.customer.email ?? '—'}
              {c.customer.mergedInto && (
                <>
                  {' '}
                  · merged into <a href={linkTo(page, 'customers', c.customer.mergedInto)}>{c.customer.mergedInto}</a>
                </>
              )}
            </p>
            {c.openConflicts.length > 0 && (
              <p class="warning">
                Open identity conflict: <a href={linkTo(page, 'conflicts')}>review it</a>.
              </p>
            )}
            <div class="columns">
              <div>
                <h3>Identities</h3>
                {c.identityLinks.length === 0 ? (
                  <p class="empty">No identifiers.</p>
                ) : (
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Kind</th>
                        <th scope="col">Id</th>
                        <th scope="col">Assurance</th>
                        <th scope="col">Linked</th>
                      </tr>
                    </thead>
                    <tbody>
                      {c.identityLinks.map((l) => (
                        <tr>
                          <td>{l.kind}</td>
                          <td>
                            <code>{l.id}</code>
                          </td>
                          <td>
                            <span class={`assurance assurance-${l.assurance}`}>{l.assurance === 'verified' ? 'verified' : l.assurance === 'rail' ? 'payment rail' : 'self-asserted'}</span>
                          </td>
                          <td>
                            <Time ms={l.createdAt} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </div>
              <div>
                <h3>Traits</h3>
                {Object.keys(c.customer.traits ?? {}).length === 0 ? (
                  <p class="empty">No traits.</p>
                ) : (
                  <dl class="traits">
                    {Object.entries(c.customer.traits).map(([k, v]) => (
                      <>
                        <dt>{k}</dt>
                        <dd>{String(v)}</dd>
                      </>
                    ))}
                  </dl>
                )}
              </div>
            </div>
            <h3>Entitlements</h3>
            <Grants customer={c} page={page} onChanged={reload} />
          </article>
          {page.canChange && c.customer.status === 'active' && <GrantForm page={page} customerId={customerId} onChanged={reload} />}
          <article class="card">
            <h3>Audit trail</h3>
            <OlderPages first={c.audit} firstCursor={c.auditNextCursor} path={inProject(page.projectId, page.env, `/customers/${encodeURIComponent(customerId)}/audit`)} label="audit entries">
              {(entries: AuditEntry[]) => <AuditTable entries={entries} page={page} />}
            </OlderPages>
          </article>
          <article class="card">
            <h3>Recent events</h3>
            <OlderPages first={c.recentEvents} firstCursor={c.eventsNextCursor} path={inProject(page.projectId, page.env, `/customers/${encodeURIComponent(customerId)}/events`)} label="events">
              {(events: RecentEvent[]) =>
                events.length === 0 ? (
                  <p class="empty">No events resolved to this customer.</p>
                ) : (
                  <table aria-label="Recent events">
                    <thead>
                      <tr>
                        <th scope="col">When</th>
                        <th scope="col">Name</th>
                        <th scope="col">Level</th>
                        <th scope="col">Platform</th>
                      </tr>
                    </thead>
                    <tbody>
                      {events.map((e) => (
                        <tr>
                          <td>
                            <Time ms={e.timestamp} />
                          </td>
                          <td>{e.name}</td>
                          <td>{e.level ?? '—'}</td>
                          <td>{e.platform}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )
              }
            </OlderPages>
          </article>
          {page.canChange && c.customer.status === 'active' && <EraseForm page={page} customerId={customerId} onChanged={reload} />}
        </>
      )}
    </Show>
  );
}

function Grants({ customer, page, onChanged }: { customer: Customer; page: PageProps; onChanged: () => void }) {
  const now = Date.now();
  const active = customer.grants.filter((g) => g.revokedAt === null && (g.validUntil === null || g.validUntil > now));
  const past = customer.grants.filter((g) => !active.includes(g));
  const row = (g: Customer['grants'][number], isActive: boolean) => (
    <tr data-grant={g.grantId}>
      <td>
        <code>{g.entitlementKey}</code>
      </td>
      <td>{g.source.rail}</td>
      <td>
        <Time ms={g.createdAt} />
      </td>
      <td>{g.validUntil === null ? 'lifetime' : <Time ms={g.validUntil} />}</td>
      <td>{g.revokedAt ? <>revoked <Time ms={g.revokedAt} /></> : isActive ? 'active' : 'expired'}</td>
      <td>{isActive && g.source.rail === 'manual' && page.canChange && <RevokeForm page={page} customerId={customer.customer.customerId} entitlementKey={g.entitlementKey} onChanged={onChanged} />}</td>
    </tr>
  );
  if (customer.grants.length === 0) return <p class="empty">No entitlements, active or past.</p>;
  return (
    <table aria-label="Entitlement grants">
      <thead>
        <tr>
          <th scope="col">Entitlement</th>
          <th scope="col">Rail</th>
          <th scope="col">Granted</th>
          <th scope="col">Valid until</th>
          <th scope="col">State</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {active.map((g) => row(g, true))}
        {past.map((g) => row(g, false))}
      </tbody>
    </table>
  );
}

function GrantForm({ page, customerId, onChanged }: { page: PageProps; customerId: string; onChanged: () => void }) {
  const [key, setKey] = useState('');
  const [duration, setDuration] = useState('P30D');
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const action = useAction((body: object) => call<GrantChange>('POST', inProject(page.projectId, page.env, `/customers/${encodeURIComponent(customerId)}/grant`), body));
  return (
    <form
      class="card form-grid"
      aria-label="Grant an entitlement"
      onSubmit={async (e) => {
        e.preventDefault();
        const result = await action.act({ entitlementKey: key, duration, reason });
        if (result) {
          setDone(result.auditEventId);
          setReason('');
          onChanged();
        }
      }}
    >
      <h3>Grant an entitlement</h3>
      <Field label="Entitlement key">{(id) => <input id={id} required pattern="[a-z][a-z0-9_]{1,39}" value={key} onInput={(e) => setKey(e.currentTarget.value)} placeholder="pro" />}</Field>
      <Field label="Duration">
        {(id) => (
          <select id={id} value={duration} onChange={(e) => setDuration(e.currentTarget.value)}>
            <option value="P30D">30 days</option>
            <option value="P90D">90 days</option>
            <option value="P1Y">1 year</option>
            <option value="lifetime">Lifetime</option>
          </select>
        )}
      </Field>
      <Field label="Reason" hint="20–500 characters; kept on the audit entry.">
        {(id) => <textarea id={id} required minLength={20} maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />}
      </Field>
      <div>
        <button type="submit" disabled={action.busy}>
          Grant
        </button>
      </div>
      <ErrorBox error={action.error} />
      {done && (
        <p role="status">
          Granted. <AuditLink eventId={done} base={linkTo(page, 'audit')} />
        </p>
      )}
    </form>
  );
}

function RevokeForm({ page, customerId, entitlementKey, onChanged }: { page: PageProps; customerId: string; entitlementKey: string; onChanged: () => void }) {
  const [reason, setReason] = useState('');
  const action = useAction(() => call<GrantChange>('POST', inProject(page.projectId, page.env, `/customers/${encodeURIComponent(customerId)}/revoke`), { entitlementKey, reason }));
  return (
    <form
      class="inline-form"
      aria-label={`Revoke ${entitlementKey}`}
      onSubmit={async (e) => {
        e.preventDefault();
        if (await action.act()) onChanged();
      }}
    >
      <Field label={`Reason to revoke ${entitlementKey}`}>{(id) => <input id={id} required maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />}</Field>
      <button type="submit" class="danger" disabled={action.busy}>
        Revoke
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

function EraseForm({ page, customerId, onChanged }: { page: PageProps; customerId: string; onChanged: () => void }) {
  const [confirm, setConfirm] = useState('');
  const action = useAction(() => call<ErasureQueued>('POST', inProject(page.projectId, page.env, `/customers/${encodeURIComponent(customerId)}/erase`), { confirmCustomerId: confirm }));
  return (
    <form
      class="card danger-zone"
      aria-label="Erase this customer"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await action.act()) {
          onChanged();
          navigate({ projectId: page.projectId, env: page.env, page: 'customers', args: [customerId] });
        }
      }}
    >
      <h3>Erase personal data</h3>
      <p>Deletes identifiers, device bindings, email, traits and telemetry. Payment-rail records and the audit log are kept. Cannot be undone.</p>
      <Field label="Type the customer id to confirm">{(id) => <input id={id} required value={confirm} onInput={(e) => setConfirm(e.currentTarget.value)} />}</Field>
      <button type="submit" class="danger" disabled={action.busy || confirm !== customerId}>
        Erase customer
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}
