import { useState } from 'preact/hooks';
import { call, inProject } from '../api';
import type { PageProps } from '../context';
import { ErrorBox, Field, Show, Time, useAction, useResource } from '../ui';
import type { RailsView as Rails } from '../../../functions/src/wire/dashboard';


/** References and certificate fingerprints only: no secret value is ever sent to or shown by this page. */
export function RailsPage(props: PageProps) {
  const [rails, reload] = useResource<Rails>(inProject(props.projectId, props.env, '/rails'));
  return (
    <section>
      <p class="muted">
        Credentials stay in the secret manager; these settings name them, inside this project only: a name <code>N</code> is read from the secret{' '}
        <code>tessera-{props.projectId}-N</code>. The dashboard never receives a secret value.
      </p>
      <Show resource={rails}>
        {(r) => (
          <>
            <p class="muted">
              Last changed <Time ms={r.updatedAt} />
            </p>
            <article class="card">
              <h2>Stripe</h2>
              {r.stripe ? (
                <dl class="facts">
                  <dt>Secret key reference</dt>
                  <dd>
                    <code>{r.stripe.secretKeyRef}</code> (secret <code>{r.secretIds.stripeSecretKey ?? '—'}</code>)
                  </dd>
                  <dt>Webhook secret reference</dt>
                  <dd>
                    <code>{r.stripe.webhookSecretRef}</code> (secret <code>{r.secretIds.stripeWebhookSecret ?? '—'}</code>)
                  </dd>
                  <dt>Webhook URL path</dt>
                  <dd>
                    <code>{r.webhooks.stripe}</code>
                  </dd>
                </dl>
              ) : (
                <p class="empty">Not configured.</p>
              )}
              {props.canChange && <StripeForm page={props} current={r.stripe} onSaved={reload} />}
            </article>
            <article class="card">
              <h2>App Store</h2>
              {r.apple ? (
                <>
                  <dl class="facts">
                    <dt>Bundle id</dt>
                    <dd>{r.apple.bundleId}</dd>
                    <dt>Apple app id</dt>
                    <dd>{r.apple.appAppleId ?? '—'}</dd>
                    <dt>Verifies</dt>
                    <dd>{r.apple.verifies.join(', ')}</dd>
                  </dl>
                  <h3>Root certificates</h3>
                  <ul>
                    {r.apple.rootCertificates.map((c) => (
                      <li>{'invalid' in c ? 'unreadable certificate' : <>{c.subject} — SHA-256 <code>{c.sha256}</code>, valid to {c.validTo.slice(0, 10)}</>}</li>
                    ))}
                  </ul>
                </>
              ) : (
                <p class="empty">Not configured.</p>
              )}
              {props.canChange && <AppleForm page={props} current={r.apple} onSaved={reload} />}
            </article>
            <article class="card">
              <h2>Google Play</h2>
              {r.google ? (
                <dl class="facts">
                  <dt>Package name</dt>
                  <dd>{r.google.packageName}</dd>
                  <dt>Service account reference</dt>
                  <dd>
                    <code>{r.google.serviceAccountRef}</code>
                  </dd>
                  <dt>Push audience</dt>
                  <dd>{r.google.pushAudience ?? '—'}</dd>
                  <dt>Push service account</dt>
                  <dd>{r.google.pushServiceAccountEmail ?? '—'}</dd>
                </dl>
              ) : (
                <p class="empty">Not configured.</p>
              )}
              {props.canChange && <GoogleForm page={props} current={r.google} onSaved={reload} />}
            </article>
          </>
        )}
      </Show>
    </section>
  );
}

function useSave(page: PageProps, rail: string, onSaved: () => void) {
  return useAction(async (body: object) => {
    const result = await call('POST', inProject(page.projectId, page.env, `/rails/${rail}`), body);
    onSaved();
    return result;
  });
}

function StripeForm({ page, current, onSaved }: { page: PageProps; current: Rails['stripe']; onSaved: () => void }) {
  const [secretKeyRef, setKeyRef] = useState(current?.secretKeyRef ?? '');
  const [webhookSecretRef, setWebhookRef] = useState(current?.webhookSecretRef ?? '');
  const save = useSave(page, 'stripe', onSaved);
  return (
    <form class="form-grid" aria-label="Set the Stripe references" onSubmit={(e) => (e.preventDefault(), void save.act({ secretKeyRef, webhookSecretRef }))}>
      <Field label="Secret key reference" hint="The secret's name in the secret manager, never the key itself.">
        {(id) => <input id={id} required autoComplete="off" value={secretKeyRef} onInput={(e) => setKeyRef(e.currentTarget.value)} />}
      </Field>
      <Field label="Webhook secret reference">{(id) => <input id={id} required autoComplete="off" value={webhookSecretRef} onInput={(e) => setWebhookRef(e.currentTarget.value)} />}</Field>
      <div>
        <button type="submit" disabled={save.busy}>
          Save Stripe references
        </button>
      </div>
      <ErrorBox error={save.error} />
    </form>
  );
}

function AppleForm({ page, current, onSaved }: { page: PageProps; current: Rails['apple']; onSaved: () => void }) {
  const [bundleId, setBundleId] = useState(current?.bundleId ?? '');
  const [appAppleId, setAppAppleId] = useState(current?.appAppleId ? String(current.appAppleId) : '');
  const [cert, setCert] = useState('');
  const save = useSave(page, 'apple', onSaved);
  return (
    <form
      class="form-grid"
      aria-label="Set the App Store settings"
      onSubmit={(e) => {
        e.preventDefault();
        void save.act({ bundleId, appAppleId: appAppleId ? Number(appAppleId) : null, ...(cert.trim() ? { rootCertificates: [cert] } : {}) });
      }}
    >
      <Field label="Bundle id">{(id) => <input id={id} required value={bundleId} onInput={(e) => setBundleId(e.currentTarget.value)} />}</Field>
      <Field label="Apple app id" hint="Needed to verify production transactions.">
        {(id) => <input id={id} inputMode="numeric" pattern="[1-9][0-9]*" value={appAppleId} onInput={(e) => setAppAppleId(e.currentTarget.value)} />}
      </Field>
      <Field label="Root certificate (PEM)" hint="Public; leave empty to keep the configured ones.">
        {(id) => <textarea id={id} value={cert} onInput={(e) => setCert(e.currentTarget.value)} />}
      </Field>
      <div>
        <button type="submit" disabled={save.busy}>
          Save App Store settings
        </button>
      </div>
      <ErrorBox error={save.error} />
    </form>
  );
}

function GoogleForm({ page, current, onSaved }: { page: PageProps; current: Rails['google']; onSaved: () => void }) {
  const [packageName, setPackageName] = useState(current?.packageName ?? '');
  const [serviceAccountRef, setRef] = useState(current?.serviceAccountRef ?? '');
  const [pushAudience, setAudience] = useState(current?.pushAudience ?? '');
  const save = useSave(page, 'google', onSaved);
  return (
    <form class="form-grid" aria-label="Set the Google Play settings" onSubmit={(e) => (e.preventDefault(), void save.act({ packageName, serviceAccountRef, ...(pushAudience ? { pushAudience } : {}) }))}>
      <Field label="Package name">{(id) => <input id={id} required value={packageName} onInput={(e) => setPackageName(e.currentTarget.value)} />}</Field>
      <Field label="Service account reference">{(id) => <input id={id} required autoComplete="off" value={serviceAccountRef} onInput={(e) => setRef(e.currentTarget.value)} />}</Field>
      <Field label="Push audience">{(id) => <input id={id} value={pushAudience} onInput={(e) => setAudience(e.currentTarget.value)} />}</Field>
      <div>
        <button type="submit" disabled={save.busy}>
          Save Google Play settings
        </button>
      </div>
      <ErrorBox error={save.error} />
    </form>
  );
}
