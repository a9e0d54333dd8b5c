import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, session, SIGNED_OUT_EVENT, type Env } from './api';
import { authEmulated, completeEmailLink, consumeLocalLoginLink, firebaseAvailable, forgetSignIn, installRefresher, sendEmailLink, signOut } from './auth';
import type { PageProps } from './context';
import { navigate, PAGES, useRoute, href, type Page } from './router';
import { asFailure, ErrorBox, Field, Loading, useAction } from './ui';
import { AppsPage } from './pages/apps';
import { AuditPage } from './pages/audit';
import { ConflictsPage } from './pages/conflicts';
import { CustomersPage } from './pages/customers';
import { ErrorsPage } from './pages/errors';
import { OverviewPage } from './pages/overview';
import { RailsPage } from './pages/rails';
import { WebhooksPage } from './pages/webhooks';

interface SessionInfo {
  operator: { email: string; via: 'firebase' | 'local' };
  projects: { projectId: string; name: string; role: 'admin' | 'viewer'; archived: boolean }[];
}

const TITLES: Record<Page, string> = {
  overview: 'Overview',
  customers: 'Customers',
  conflicts: 'Conflicts',
  apps: 'Apps and keys',
  rails: 'Rails',
  errors: 'Errors',
  webhooks: 'Webhooks',
  audit: 'Audit',
};

const PAGE_COMPONENTS: Record<Page, (props: PageProps) => preact.JSX.Element> = {
  overview: OverviewPage,
  customers: CustomersPage,
  conflicts: ConflictsPage,
  apps: AppsPage,
  rails: RailsPage,
  errors: ErrorsPage,
  webhooks: WebhooksPage,
  audit: AuditPage,
};

function App() {
  const [state, setState] = useState<{ phase: 'starting' } | { phase: 'signed-out'; error?: string } | { phase: 'signed-in'; session: SessionInfo }>({ phase: 'starting' });

  const load = async () => {
    try {
      await consumeLocalLoginLink();
      await completeEmailLink();
      installRefresher();
      if (!session.get()) return setState({ phase: 'signed-out' });
      setState({ phase: 'signed-in', session: await call<SessionInfo>('GET', '/session') });
    } catch (err) {
      const failure = asFailure(err);
      if (failure.status === 401) forgetSignIn();
      setState({ phase: 'signed-out', error: failure.message });
    }
  };
  useEffect(() => void load(), []);
  useEffect(() => {
    const onSignedOut = (event: Event) => {
      forgetSignIn();
      setState({ phase: 'signed-out', error: String((event as CustomEvent).detail) });
    };
    addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
  }, []);

  if (state.phase === 'starting') return <Loading />;
  if (state.phase === 'signed-out') return <SignIn error={state.error} />;
  const onSignOut = async () => {
    let error: string | undefined;
    try {
      await signOut();
    } catch (err) {
      if (asFailure(err).status !== 401) error = `Signed out of this tab, but the server did not confirm: ${asFailure(err).message}`;
    }
    setState({ phase: 'signed-out', error });
  };
  return <Console session={state.session} onSignOut={onSignOut} />;
}

function SignIn({ error }: { error?: string }) {
  const [firebase, setFirebase] = useState<boolean | null>(null);
  const [emulated, setEmulated] = useState(false);
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const action = useAction(sendEmailLink);
  useEffect(() => void firebaseAvailable().then(setFirebase), []);
  useEffect(() => void authEmulated().then(setEmulated), []);
  return (
    <main class="sign-in">
      <h1>Tessera dashboard</h1>
      {error && <div class="error" role="alert">{error}</div>}
      {firebase === null && <Loading />}
      {firebase === false && (
        <p>
          Sign in with the link <code>npm start</code> printed (<code>Dashboard (one-time sign-in link): …</code>). Each link signs in once; the terminal then prints the next one.
        </p>
      )}
      {firebase && !sent && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            if ((await action.act(email)) !== undefined || !action.error) setSent(true);
          }}
        >
          <Field label="Operator email">{(id) => <input id={id} type="email" required autoComplete="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}</Field>
          <button type="submit" disabled={action.busy}>
            Email me a sign-in link
          </button>
          <ErrorBox error={action.error} />
        </form>
      )}
      {sent && !emulated && <p>Check your inbox for the sign-in link, then open it in this browser.</p>}
      {sent && emulated && (
        <p data-testid="emulator-link-note">
          Local emulator suite: no email is sent. The sign-in link is printed in the terminal running <code>npm run emulators</code>; open it in this browser.
        </p>
      )}
    </main>
  );
}

function Console({ session, onSignOut }: { session: SessionInfo; onSignOut: () => void }) {
  const route = useRoute();
  const project = session.projects.find((p) => p.projectId === route.projectId) ?? null;
  useEffect(() => {
    if (!project && session.projects.length > 0) navigate({ projectId: session.projects[0].projectId, env: route.env, page: route.page });
  }, [project, route.env, route.page]);
  useEffect(() => {
    document.body.classList.toggle('env-test', route.env === 'test');
    document.body.classList.toggle('env-live', route.env === 'live');
    document.title = `${TITLES[route.page]} · ${route.env === 'test' ? 'TEST' : 'LIVE'} · Tessera`;
  }, [route.env, route.page]);

  const switchEnv = (env: Env) => navigate({ projectId: route.projectId, env, page: route.page });
  const Page = PAGE_COMPONENTS[route.page];
  return (
    <>
      {route.env === 'test' && (
        <div class="test-banner" role="note" data-testid="test-banner">
          TEST MODE — sandbox data only. Nothing here is live.
        </div>
      )}
      <header class="top">
        <strong class="brand">Tessera</strong>
        <label class="project-picker">
          <span>Project</span>
          <select value={route.projectId ?? ''} onChange={(e) => navigate({ projectId: e.currentTarget.value, env: route.env, page: route.page })}>
            {session.projects.map((p) => (
              <option value={p.projectId}>
                {p.name} ({p.projectId}){p.archived ? ' — archived' : ''}
              </option>
            ))}
          </select>
        </label>
        <fieldset class="env-switch" data-testid="env-switch">
          <legend>Environment</legend>
          {(['test', 'live'] as const).map((env) => (
            <label class={`env-option env-${env}${route.env === env ? ' current' : ''}`}>
              <input type="radio" name="env" value={env} checked={route.env === env} onChange={() => switchEnv(env)} />
              {env === 'test' ? 'Test' : 'Live'}
            </label>
          ))}
        </fieldset>
        <span class="who">
          {session.operator.email} {project && <span class={`role role-${project.role}`}>{project.role}</span>}
        </span>
        <button type="button" class="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <div class="layout">
        <nav aria-label="Pages">
          <ul>
            {PAGES.map((page) => (
              <li>
                <a href={href({ projectId: route.projectId, env: route.env, page })} aria-current={route.page === page ? 'page' : undefined}>
                  {TITLES[page]}
                </a>
              </li>
            ))}
          </ul>
          {/* The static API reference beside the dashboard on the same origin (hosting-public/reference/). */}
          <a class="nav-external" href="/reference/">
            API reference
          </a>
        </nav>
        <main id="main">
          <h1>
            {TITLES[route.page]} <span class={`env-label env-${route.env}`}>{route.env === 'test' ? 'Test' : 'Live'}</span>
          </h1>
          {session.projects.length === 0 && <p class="empty">You are not an operator of any project yet. An admin grants access with <code>tessera operators add</code>.</p>}
          {project && route.projectId && <Page key={`${route.projectId}/${route.env}`} projectId={route.projectId} env={route.env} args={route.args} canChange={project.role === 'admin'} />}
        </main>
      </div>
    </>
  );
}

render(<App />, document.getElementById('app')!);
