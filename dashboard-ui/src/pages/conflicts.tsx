import { call, inProject } from '../api';
import { linkTo, type PageProps } from '../context';
import { AuditLink, ErrorBox, Show, Time, useAction, useResource } from '../ui';
import { useState } from 'preact/hooks';
import type { ConflictResolution, ConflictRow as Conflict, IdentitySettings } from '../../../functions/src/wire/dashboard';



/** The project's identity settings, stated plainly (changed with the CLI: identity-provider policy, subscription-transfer set). */
function IdentitySettingsCard({ projectId, env }: { projectId: string; env: PageProps['env'] }) {
  const [settings] = useResource<IdentitySettings>(inProject(projectId, env, '/identity-settings'));
  return (
    <article class="card" aria-label="Identity settings">
      <h2>Identity settings</h2>
      <Show resource={settings}>
        {(s) => (
          <>
            {s.requireVerifiedIdentity ? (
              <p>
                <strong>Verified identity required.</strong> Nothing links a device to a user with a verified identity without a valid idToken (identify, events, bulk alias, resolve).
              </p>
            ) : (
              <p class="warning" role="note">
                <strong>Verified identity is not required.</strong> A self-asserted identify (a user id without an idToken) lets any device act for that user: it reads the user’s entitlements by
                device, and it can erase the user (<code>forget</code> by anonymousId needs no proof). We recommend switching it on
                {s.providerConfigured ? '' : ' once an identity provider is set (identity-provider set)'}: <code>tessera identity-provider policy --project {projectId} --require-verified-identity on</code>.
              </p>
            )}
            <p>
              Subscription transfer: <strong>{s.subscriptionTransfer}</strong>.{' '}
              {s.subscriptionTransfer === 'keep'
                ? 'A verified purchase presented for another customer stays with its owner.'
                : 'A verified purchase presented for another customer moves to it (audited as customer.subscription_transferred).'}{' '}
              An erased owner’s purchases always transfer on proof. Change it with <code>tessera subscription-transfer set</code>.
            </p>
          </>
        )}
      </Show>
    </article>
  );
}

export function ConflictsPage(props: PageProps) {
  const [conflicts, reload] = useResource<Conflict[]>(inProject(props.projectId, props.env, '/conflicts'));
  const [resolved, setResolved] = useState<{ id: string; decision: string; auditEventId: string | null } | null>(null);
  return (
    <section>
      <IdentitySettingsCard projectId={props.projectId} env={props.env} />
      {resolved && (
        <p class="card" role="status">
          Conflict {resolved.id}: {resolved.decision.replace('_', ' ')}. <AuditLink eventId={resolved.auditEventId} base={linkTo(props, 'audit')} />
        </p>
      )}
      <Show resource={conflicts} empty={(list) => list.length === 0} emptyText="No open identity conflicts. The review queue is empty.">
        {(list) => list.map((c) => <ConflictCard key={c.conflictId} conflict={c} page={props} onResolved={(r) => (setResolved(r), reload())} />)}
      </Show>
    </section>
  );
}

function ConflictCard({ conflict, page, onResolved }: { conflict: Conflict; page: PageProps; onResolved: (r: { id: string; decision: string; auditEventId: string | null }) => void }) {
  const action = useAction((decision: 'merge' | 'keep_separate') => call<ConflictResolution>('POST', inProject(page.projectId, page.env, `/conflicts/${encodeURIComponent(conflict.conflictId)}/resolve`), { decision }));
  const ids = [conflict.canonicalCustomerId, ...conflict.otherCustomerIds];
  const resolve = async (decision: 'merge' | 'keep_separate') => {
    const result = await action.act(decision);
    if (result) onResolved({ id: conflict.conflictId, decision: result.decision, auditEventId: result.auditEventId });
  };
  return (
    <article class="card conflict" data-conflict-id={conflict.conflictId} aria-label={`Conflict ${conflict.conflictId}`}>
      <h2>
        Conflict <code>{conflict.conflictId}</code>
      </h2>
      <p class="muted">
        Opened <Time ms={conflict.createdAt} />. A merge moves every identifier and entitlement into the first customer.
      </p>
      <div class="side-by-side">
        {conflict.customers.map((side, i) => (
          <div class="side">
            <h3>
              {i === 0 ? 'Keeps' : 'Merges in'}: <a href={linkTo(page, 'customers', ids[i])}>{ids[i]}</a>
            </h3>
            {side === null ? (
              <p class="empty">This customer no longer exists.</p>
            ) : (
              <>
                <p class="muted">
                  Created <Time ms={side.customer.createdAt} /> · email {side.customer.email ?? '—'} · {side.customer.status}
                </p>
                <h4>Identities</h4>
                <ul>
                  {side.identityLinks.map((l) => (
                    <li>
                      {l.kind} <code>{l.id}</code> <span class="muted">({l.assurance})</span>
                    </li>
                  ))}
                </ul>
                <h4>Traits</h4>
                <p>{Object.entries(side.customer.traits ?? {}).map(([k, v]) => `${k}: ${String(v)}`).join(', ') || '—'}</p>
                <h4>Active entitlements</h4>
                <p>{side.entitlements.map((e) => e.key).join(', ') || '—'}</p>
              </>
            )}
          </div>
        ))}
      </div>
      {page.canChange && (
        <p>
          <button type="button" disabled={action.busy} onClick={() => resolve('merge')}>
            Merge into {conflict.canonicalCustomerId}
          </button>{' '}
          <button type="button" disabled={action.busy} onClick={() => resolve('keep_separate')}>
            Keep separate
          </button>
        </p>
      )}
      <ErrorBox error={action.error} />
    </article>
  );
}
