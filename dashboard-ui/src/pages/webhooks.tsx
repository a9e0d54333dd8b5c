import { useState } from 'preact/hooks';
import { call, inProject } from '../api';
import { linkTo, type PageProps } from '../context';
import { AuditLink, ErrorBox, Field, GraceSelect, OnceSecret, Show, Time, useAction, useResource } from '../ui';
import type { CreatedEndpoint, DeletedEndpoint, DeliveryRow as Delivery, EndpointChange, EndpointViewWire as Endpoint, ReplayQueued, RotatedSecret, TestEventSent } from '../../../functions/src/wire/dashboard';


const EVENT_TYPES = ['entitlement.granted', 'entitlement.renewed', 'entitlement.revoked', 'entitlement.expired', 'entitlement.refunded', 'customer.merged', 'customer.erased', 'customer.subscription_transferred'];

/**
 * Endpoints of this environment: register (signing secret shown once), edit (URL, event types),
 * delete (with its signing secrets, after a confirmation), disable / enable, rotate the secret
 * with a grace, send a test event; each endpoint's deliveries with their attempts, and replay of
 * a delivered or failed event.
 */
export function WebhooksPage(props: PageProps) {
  const [endpoints, reload] = useResource<Endpoint[]>(inProject(props.projectId, props.env, '/webhooks'));
  const [secret, setSecret] = useState<{ label: string; value: string; auditEventId: string } | null>(null);
  return (
    <section>
      {secret && (
        <>
          <OnceSecret label={secret.label} value={secret.value} onDone={() => setSecret(null)} />
          <AuditLink eventId={secret.auditEventId} base={linkTo(props, 'audit')} />
        </>
      )}
      {props.canChange && <CreateEndpoint page={props} onCreated={(s) => (setSecret(s), reload())} />}
      <Show resource={endpoints} empty={(list) => list.length === 0} emptyText={`No ${props.env} webhook endpoints.`}>
        {(list) => list.map((e) => <EndpointCard key={e.endpointId} endpoint={e} page={props} onChanged={reload} onSecret={setSecret} />)}
      </Show>
    </section>
  );
}

function CreateEndpoint({ page, onCreated }: { page: PageProps; onCreated: (s: { label: string; value: string; auditEventId: string }) => void }) {
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const action = useAction(() => call<CreatedEndpoint>('POST', inProject(page.projectId, page.env, '/webhooks'), { url, eventTypes: types }));
  return (
    <form
      class="card form-grid"
      aria-label="Register a webhook endpoint"
      onSubmit={async (e) => {
        e.preventDefault();
        const result = await action.act();
        if (result) {
          setUrl('');
          onCreated({ label: `Signing secret of ${result.endpoint.endpointId}`, value: result.secret, auditEventId: result.auditEventId });
        }
      }}
    >
      <h2>Register an endpoint</h2>
      <Field label="Endpoint URL" hint="https to a public address.">
        {(id) => <input id={id} type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />}
      </Field>
      <EventTypeChoice types={types} onChange={setTypes} />
      <div>
        <button type="submit" disabled={action.busy}>
          Register endpoint
        </button>
      </div>
      <ErrorBox error={action.error} />
    </form>
  );
}

function EventTypeChoice({ types, onChange }: { types: string[]; onChange: (types: string[]) => void }) {
  return (
    <fieldset>
      <legend>Event types (none checked: every type)</legend>
      {EVENT_TYPES.map((type) => (
        <label class="check">
          <input type="checkbox" checked={types.includes(type)} onChange={(e) => onChange(e.currentTarget.checked ? [...types, type] : types.filter((t) => t !== type))} /> {type}
        </label>
      ))}
    </fieldset>
  );
}

/** Edits an endpoint's URL and event types in place; its secrets and state stay. */
function EditEndpoint({ endpoint, page, onDone }: { endpoint: Endpoint; page: PageProps; onDone: (changed: boolean) => void }) {
  const [url, setUrl] = useState(endpoint.url);
  const [types, setTypes] = useState<string[]>(endpoint.eventTypes);
  const save = useAction(() => call<EndpointChange>('POST', inProject(page.projectId, page.env, `/webhooks/${endpoint.endpointId}/update`), { url, eventTypes: types }));
  return (
    <form
      class="form-grid"
      aria-label={`Edit webhook endpoint ${endpoint.endpointId}`}
      onSubmit={async (e) => {
        e.preventDefault();
        if (await save.act()) onDone(true);
      }}
    >
      <Field label="Endpoint URL" hint="https to a public address.">
        {(id) => <input id={id} type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />}
      </Field>
      <EventTypeChoice types={types} onChange={setTypes} />
      <div class="inline-form">
        <button type="submit" disabled={save.busy}>
          Save changes
        </button>
        <button type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
      <ErrorBox error={save.error} />
    </form>
  );
}

function EndpointCard({ endpoint, page, onChanged, onSecret }: { endpoint: Endpoint; page: PageProps; onChanged: () => void; onSecret: (s: { label: string; value: string; auditEventId: string }) => void }) {
  const [grace, setGrace] = useState('24h');
  const base = (path: string) => inProject(page.projectId, page.env, `/webhooks/${endpoint.endpointId}${path}`);
  const toggle = useAction(() => call<EndpointChange>('POST', base(endpoint.enabled ? '/disable' : '/enable'), {}));
  const rotate = useAction(() => call<RotatedSecret>('POST', base('/rotate-secret'), { grace }));
  const remove = useAction(() => call<DeletedEndpoint>('DELETE', base('')));
  const [editing, setEditing] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  return (
    <article class="card" data-endpoint-id={endpoint.endpointId}>
      <h2>
        <code>{endpoint.url}</code> <span class={`state state-${endpoint.enabled ? 'active' : 'disabled'}`}>{endpoint.enabled ? 'enabled' : 'disabled'}</span>
      </h2>
      <p class="muted">
        {endpoint.endpointId} · {endpoint.allEventTypes ? 'every event type' : endpoint.eventTypes.join(', ')} · created <Time ms={endpoint.createdAt} /> · secret generation {endpoint.secretGeneration}
        {endpoint.previousSecret && (
          <>
            {' '}
            (previous signs until <Time ms={endpoint.previousSecret.expiresAt} />)
          </>
        )}
      </p>
      {page.canChange && (
        <div class="inline-form">
          <button type="button" disabled={toggle.busy} onClick={async () => (await toggle.act()) && onChanged()}>
            {endpoint.enabled ? 'Disable' : 'Enable'}
          </button>
          <GraceSelect label="Grace for the old secret" defaultGrace="24h" value={grace} onChange={setGrace} />
          <button
            type="button"
            disabled={rotate.busy}
            onClick={async () => {
              const result = await rotate.act();
              if (result) {
                onSecret({ label: `New signing secret of ${endpoint.endpointId}`, value: result.secret, auditEventId: result.auditEventId });
                onChanged();
              }
            }}
          >
            Rotate secret
          </button>
          <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
            Edit
          </button>
          {confirmingDelete ? (
            <>
              <button
                type="button"
                class="danger"
                disabled={remove.busy}
                onClick={async () => {
                  if (await remove.act()) onChanged();
                  setConfirmingDelete(false);
                }}
              >
                Delete now (its signing secrets too; irreversible)
              </button>
              <button type="button" onClick={() => setConfirmingDelete(false)}>
                Keep it
              </button>
            </>
          ) : (
            <button type="button" class="danger" onClick={() => setConfirmingDelete(true)}>
              Delete
            </button>
          )}
        </div>
      )}
      {page.canChange && editing && (
        <EditEndpoint
          endpoint={endpoint}
          page={page}
          onDone={(changed) => {
            setEditing(false);
            if (changed) onChanged();
          }}
        />
      )}
      <ErrorBox error={toggle.error ?? rotate.error ?? remove.error} />
      <Deliveries endpoint={endpoint} page={page} />
    </article>
  );
}


function Deliveries({ endpoint, page }: { endpoint: Endpoint; page: PageProps }) {
  const [deliveries, reload] = useResource<Delivery[]>(inProject(page.projectId, page.env, `/webhooks/${endpoint.endpointId}/deliveries`));
  const [notice, setNotice] = useState<{ text: string; auditEventId: string } | null>(null);
  const test = useAction(() => call<TestEventSent>('POST', inProject(page.projectId, page.env, `/webhooks/${endpoint.endpointId}/test`)));
  const replay = useAction((eventId: string) => call<ReplayQueued>('POST', inProject(page.projectId, page.env, `/webhook-events/${encodeURIComponent(eventId)}/replay`), { endpointId: endpoint.endpointId }));
  return (
    <section aria-label={`Deliveries to ${endpoint.endpointId}`}>
      <h3>Deliveries</h3>
      <p class="inline-form">
        {page.canChange && (
          <button
            type="button"
            disabled={test.busy || !endpoint.enabled}
            onClick={async () => {
              const result = await test.act();
              if (result) {
                setNotice({ text: `Test event ${result.eventId} queued.`, auditEventId: result.auditEventId });
                reload();
              }
            }}
          >
            Send test event
          </button>
        )}
        <button type="button" onClick={reload}>
          Refresh deliveries
        </button>
      </p>
      {notice && (
        <p role="status">
          {notice.text} <AuditLink eventId={notice.auditEventId} base={linkTo(page, 'audit')} />
        </p>
      )}
      <ErrorBox error={test.error ?? replay.error} />
      <Show resource={deliveries} empty={(list) => list.length === 0} emptyText="No deliveries to this endpoint yet.">
        {(list) => (
          <table aria-label={`Deliveries of ${endpoint.endpointId}`}>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                {page.canChange && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {list.map((d) => {
                const last = d.attempts[d.attempts.length - 1];
                return (
                  <tr data-delivery-id={d.deliveryId}>
                    <td>
                      <Time ms={d.createdAt} />
                    </td>
                    <td>
                      {d.eventType} <code>{d.eventId}</code>
                      {d.replay && <span class="muted"> (replay)</span>}
                    </td>
                    <td>
                      <span class={`state state-delivery-${d.state}`}>{d.state}</span>
                      {d.nextRetryAt && (
                        <span class="muted">
                          {' '}
                          next try <Time ms={d.nextRetryAt} />
                        </span>
                      )}
                    </td>
                    <td>{d.attemptCount}</td>
                    <td>{last ? (last.statusCode !== null ? `HTTP ${last.statusCode} in ${last.latencyMs} ms` : `${last.error ?? 'no answer'}${last.errorDetail ? ` (${last.errorDetail})` : ''}`) : '—'}</td>
                    {page.canChange && (
                      <td>
                        {d.state !== 'pending' && (
                          <button
                            type="button"
                            disabled={replay.busy || !endpoint.enabled}
                            onClick={async () => {
                              const result = await replay.act(d.eventId);
                              if (result) {
                                setNotice({ text: `Event ${d.eventId} replayed.`, auditEventId: result.auditEventId });
                                reload();
                              }
                            }}
                          >
                            Replay
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </Show>
    </section>
  );
}
