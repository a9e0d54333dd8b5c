import { inProject } from '../api';
import { linkTo, type PageProps } from '../context';
import { Show, Time, useResource } from '../ui';

interface Group {
  fingerprint: string;
  name: string;
  message: string | null;
  count: number;
  firstSeen: number;
  lastSeen: number;
  releases: string[];
}
interface Frame {
  raw?: string;
  function?: string | null;
  fileUrl?: string | null;
  line?: number | null;
  column?: number | null;
  original: { source: string; line: number; column: number; name: string | null } | null;
  reason: string | null;
}
interface Sample {
  eventId: string;
  name: string;
  message: string | null;
  timestamp: number;
  release: string | null;
  stack: string | null;
  customerId: string | null;
  symbolicated: { release: string; message: string | null; frames: Frame[] } | null;
}

export function ErrorsPage(props: PageProps) {
  const fingerprint = props.args[0] ?? null;
  const [groups] = useResource<Group[]>(inProject(props.projectId, props.env, '/errors'));
  return (
    <section>
      {fingerprint && <SampleView key={fingerprint} page={props} fingerprint={fingerprint} />}
      <Show resource={groups} empty={(g) => g.length === 0} emptyText="No error events in this environment.">
        {(list) => (
          <table aria-label="Error groups">
            <thead>
              <tr>
                <th scope="col">Error</th>
                <th scope="col">Events</th>
                <th scope="col">Releases</th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {list.map((g) => (
                <tr data-fingerprint={g.fingerprint}>
                  <td>
                    <a href={linkTo(props, 'errors', g.fingerprint)}>{g.name}</a>
                    <div class="muted">{g.message ?? ''}</div>
                  </td>
                  <td>{g.count}</td>
                  <td>{g.releases.join(', ') || '—'}</td>
                  <td>
                    <Time ms={g.firstSeen} />
                  </td>
                  <td>
                    <Time ms={g.lastSeen} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Show>
    </section>
  );
}

function SampleView({ page, fingerprint }: { page: PageProps; fingerprint: string }) {
  const [sample] = useResource<Sample>(inProject(page.projectId, page.env, `/errors/${encodeURIComponent(fingerprint)}`));
  return (
    <Show resource={sample}>
      {(s) => (
        <article class="card" aria-label="Error sample">
          <h2>
            {s.name}: {s.message ?? ''}
          </h2>
          <p class="muted">
            Newest event <code>{s.eventId}</code> at <Time ms={s.timestamp} /> · release {s.release ?? 'unknown'}
            {s.customerId && (
              <>
                {' '}
                · customer <a href={linkTo(page, 'customers', s.customerId)}>{s.customerId}</a>
              </>
            )}
          </p>
          {!s.stack && <p class="empty">This event carries no stack trace.</p>}
          {s.stack && !s.symbolicated && <p class="empty">No release on this event, so its stack cannot be symbolicated.</p>}
          {s.symbolicated && (
            <ol class="frames" aria-label="Symbolicated stack">
              {s.symbolicated.frames.map((f) => (
                <li class={f.original ? 'resolved' : 'unresolved'}>
                  {f.original ? (
                    <>
                      <strong>{f.original.name ?? f.function ?? '(anonymous)'}</strong> <code>{`${f.original.source}:${f.original.line}:${f.original.column}`}</code>
                    </>
                  ) : (
                    <>
                      <code>{f.raw ?? `${f.fileUrl}:${f.line}:${f.column}`}</code> <span class="muted">({f.reason?.replace('_', ' ')})</span>
                    </>
                  )}
                </li>
              ))}
            </ol>
          )}
          {s.release && <ReleaseMaps page={page} release={s.release} />}
          {s.stack && (
            <details>
              <summary>Raw stack</summary>
              <pre>{s.stack}</pre>
            </details>
          )}
        </article>
      )}
    </Show>
  );
}

interface MapInfo {
  fileUrl: string;
  contentHash: string;
  byteLength: number;
  uploadedAt: number;
}

function ReleaseMaps({ page, release }: { page: PageProps; release: string }) {
  const [maps] = useResource<MapInfo[]>(inProject(page.projectId, page.env, `/releases/${encodeURIComponent(release)}/sourcemaps`));
  return (
    <>
      <h3>Source maps of release {release}</h3>
      <Show resource={maps} empty={(list) => list.length === 0} emptyText="No source maps uploaded for this release.">
        {(list) => (
          <table aria-label={`Source maps of release ${release}`}>
            <thead>
              <tr>
                <th scope="col">File URL</th>
                <th scope="col">Size</th>
                <th scope="col">Uploaded</th>
                <th scope="col">SHA-256</th>
              </tr>
            </thead>
            <tbody>
              {list.map((m) => (
                <tr>
                  <td>
                    <code>{m.fileUrl}</code>
                  </td>
                  <td>{(m.byteLength / 1024).toFixed(1)} KB</td>
                  <td>
                    <Time ms={m.uploadedAt} />
                  </td>
                  <td>
                    <code title={m.contentHash}>{m.contentHash.slice(0, 12)}…</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Show>
    </>
  );
}
