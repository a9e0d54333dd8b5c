import { useState } from 'preact/hooks';
import { call, inProject } from '../api';
import { linkTo, type PageProps } from '../context';
import { AuditLink, ErrorBox, Field, GraceSelect, OnceSecret, Show, Time, useAction, useResource } from '../ui';
import type { AppRow as App, CreatedApp, CreatedKeys, KeyRow, RevokedKey, RotatedKey } from '../../../functions/src/wire/dashboard';


export function AppsPage(props: PageProps) {
  const [apps, reload] = useResource<App[]>(inProject(props.projectId, props.env, '/apps'));
  const [secret, setSecret] = useState<{ label: string; value: string; auditEventId?: string } | null>(null);
  return (
    <section>
      {secret && (
        <>
          <OnceSecret label={secret.label} value={secret.value} onDone={() => setSecret(null)} />
          <AuditLink eventId={secret.auditEventId} base={linkTo(props, 'audit')} />
        </>
      )}
      {props.canChange && <CreateApp {...props} onCreated={reload} />}
      <Show resource={apps} empty={(list) => list.length === 0} emptyText="No apps in this project yet.">
        {(list) => list.map((app) => <AppCard key={app.appId} app={app} page={props} onChanged={reload} onSecret={setSecret} />)}
      </Show>
    </section>
  );
}

function CreateApp(props: PageProps & { onCreated: () => void }) {
  const [platform, setPlatform] = useState<'web' | 'ios' | 'android'>('web');
  const [name, setName] = useState('');
  const [origins, setOrigins] = useState('');
  const [bundleId, setBundleId] = useState('');
  const [packageName, setPackageName] = useState('');
  const action = useAction((body: object) => call<CreatedApp>('POST', inProject(props.projectId, props.env, '/apps'), body));
  return (
    <form
      class="card form-grid"
      aria-label="Create an app"
      onSubmit={async (e) => {
        e.preventDefault();
        const body = {
          platform,
          ...(name ? { name } : {}),
          ...(platform === 'web' ? { allowedOrigins: origins.split(/[\s,]+/).filter(Boolean) } : {}),
          ...(platform === 'ios' ? { bundleId } : {}),
          ...(platform === 'android' ? { packageName } : {}),
        };
        if (await action.act(body)) {
          setName('');
          setOrigins('');
          props.onCreated();
        }
      }}
    >
      <h2>Create an app</h2>
      <Field label="Platform">
        {(id) => (
          <select id={id} value={platform} onChange={(e) => setPlatform(e.currentTarget.value as 'web')}>
            <option value="web">Web</option>
            <option value="ios">iOS</option>
            <option value="android">Android</option>
          </select>
        )}
      </Field>
      <Field label="Name">{(id) => <input id={id} value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} placeholder="e.g. Checkout web" />}</Field>
      {platform === 'web' && (
        <Field label="Allowed origins" hint="Exact origins, space or comma separated (https://app.example.com, https://*.example.com).">
          {(id) => <input id={id} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />}
        </Field>
      )}
      {platform === 'ios' && <Field label="Bundle id">{(id) => <input id={id} required value={bundleId} onInput={(e) => setBundleId(e.currentTarget.value)} placeholder="com.example.app" />}</Field>}
      {platform === 'android' && <Field label="Package name">{(id) => <input id={id} required value={packageName} onInput={(e) => setPackageName(e.currentTarget.value)} placeholder="com.example.app" />}</Field>}
      <div>
        <button type="submit" disabled={action.busy}>
          Create app
        </button>
      </div>
      <ErrorBox error={action.error} />
    </form>
  );
}

function AppCard({ app, page, onChanged, onSecret }: { app: App; page: PageProps; onChanged: () => void; onSecret: (s: { label: string; value: string; auditEventId?: string }) => void }) {
  const base = (path: string) => inProject(page.projectId, page.env, path);
  const create = useAction(() => call<CreatedKeys>('POST', base(`/apps/${app.appId}/keys`)));
  const hasCurrent = app.keys.some((k) => k.state === 'active');
  return (
    <article class="card app" data-app-id={app.appId}>
      <h2>
        {app.name} <span class="muted">{app.platform} · {app.appId}</span>
      </h2>
      <p class="muted">
        {app.platform === 'web' && <>Allowed origins: {app.allowedOrigins.length ? app.allowedOrigins.join(', ') : 'none yet (learned from the first heartbeat)'}</>}
        {app.platform === 'ios' && <>Bundle id: {app.bundleId}</>}
        {app.platform === 'android' && <>Package name: {app.packageName}</>} · created <Time ms={app.createdAt} />
        {app.archived && <strong> · archived</strong>}
      </p>
      <table>
        <caption>{page.env === 'test' ? 'Test' : 'Live'} keys</caption>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Key</th>
            <th scope="col">State</th>
            <th scope="col">Created</th>
            <th scope="col">Grace ends / revoked</th>
            {page.canChange && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {app.keys.length === 0 && (
            <tr>
              <td colSpan={6} class="empty">
                No {page.env} keys yet.
              </td>
            </tr>
          )}
          {app.keys.map((key) => (
            <KeyRowView key={key.id} row={key} page={page} onChanged={onChanged} onSecret={onSecret} />
          ))}
        </tbody>
      </table>
      {page.canChange && !hasCurrent && !app.archived && (
        <p>
          <button
            type="button"
            disabled={create.busy}
            onClick={async () => {
              const minted = await create.act();
              if (minted) {
                onSecret({ label: `New ${page.env} secret key (publishable: ${minted.publishable.key})`, value: minted.secret.key, auditEventId: minted.auditEventId });
                onChanged();
              }
            }}
          >
            Create {page.env} keys
          </button>
        </p>
      )}
      <ErrorBox error={create.error} />
      <details open={app.activity.length > 0 && app.activity.length < 8}>
        <summary>Key activity ({app.activity.length})</summary>
        {app.activity.length === 0 ? (
          <p class="empty">No key activity in this environment.</p>
        ) : (
          <ol class="activity" aria-label={`Key activity of ${app.name}`}>
            {app.activity.map((a) => (
              <li>
                <Time ms={a.at} /> — <strong>{a.action}</strong> {a.kind} key <code>{a.keyId}</code>
                {a.newKeyId && (
                  <>
                    {' '}
                    → <code>{a.newKeyId}</code>, old key until <Time ms={a.graceEndsAt} />
                  </>
                )}
                {a.operator && <span class="muted"> by {a.operator}</span>}
              </li>
            ))}
          </ol>
        )}
      </details>
    </article>
  );
}

function KeyRowView({ row, page, onChanged, onSecret }: { row: KeyRow; page: PageProps; onChanged: () => void; onSecret: (s: { label: string; value: string; auditEventId?: string }) => void }) {
  const [grace, setGrace] = useState('7d');
  const [confirming, setConfirming] = useState(false);
  const base = (path: string) => inProject(page.projectId, page.env, path);
  const rotate = useAction(() => call<RotatedKey>('POST', base(`/keys/${row.id}/rotate`), { grace }));
  const revoke = useAction(() => call<RevokedKey>('POST', base(`/keys/${row.id}/revoke`)));
  return (
    <tr data-key-id={row.id}>
      <td>{row.kind}</td>
      <td>
        <code>{row.key}</code>
      </td>
      <td>
        <span class={`state state-${row.state}`}>{row.state === 'grace' ? 'in grace (rotated)' : row.state}</span>
      </td>
      <td>
        <Time ms={row.createdAt} />
      </td>
      <td>{row.revokedAt ? <Time ms={row.revokedAt} /> : <Time ms={row.graceEndsAt} />}</td>
      {page.canChange && (
        <td class="actions">
          {row.state === 'active' && (
            <>
              <GraceSelect label={`Grace for rotating ${row.id}`} hideLabel defaultGrace="7d" value={grace} onChange={setGrace} />
              <button
                type="button"
                disabled={rotate.busy}
                onClick={async () => {
                  const result = await rotate.act();
                  if (result) {
                    onSecret({ label: `Replacement ${row.kind} key`, value: result.newKey.key, auditEventId: result.auditEventId });
                    onChanged();
                  }
                }}
              >
                Rotate
              </button>
            </>
          )}
          {row.state !== 'revoked' &&
            (confirming ? (
              <>
                <button
                  type="button"
                  class="danger"
                  disabled={revoke.busy}
                  onClick={async () => {
                    if (await revoke.act()) onChanged();
                    setConfirming(false);
                  }}
                >
                  Revoke now (irreversible)
                </button>
                <button type="button" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </>
            ) : (
              <button type="button" class="danger" onClick={() => setConfirming(true)}>
                Revoke
              </button>
            ))}
          <ErrorBox error={rotate.error ?? revoke.error} />
        </td>
      )}
    </tr>
  );
}
