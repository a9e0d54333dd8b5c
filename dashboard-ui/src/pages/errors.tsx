import { inProject } from '../api';
import { linkTo, type PageProps } from '../context';
import { useState } from 'preact/hooks';
import { Field, Show, Time, useResource } from '../ui';
import type { ErrorGroupDetail as Detail, ErrorGroupSummary as Group, ErrorsReport as Page } from '../../../functions/src/wire/reports';
import type { SourceMapInfo as MapInfo } from '../../../functions/src/wire/dashboard';


export function ErrorsPage(props: PageProps) {
  const fingerprint = props.args[0] ?? null;
  const [days, setDays] = useState('30');
  const [cursor, setCursor] = useState<string | null>(null);
  const [groups] = useResource<Page>(inProject(props.projectId, props.env, `/errors?days=${days}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`));
  return (
    <section>
      {fingerprint && <SampleView key={fingerprint} page={props} fingerprint={fingerprint} />}
      <form class="inline-form" onSubmit={(e) => e.preventDefault()}>
        <Field label="Last seen within">
          {(id) => (
            <select id={id} value={days} onChange={(e) => (setCursor(null), setDays(e.currentTarget.value))}>
              <option value="7">7 days</option>
              <option value="30">30 days</option>
              <option value="90">90 days</option>
            </select>
          )}
        </Field>
      </form>
      <Show resource={groups} empty={(g) => g.data.length === 0} emptyText="No error groups in this range.">
        {(page) => (
          <>
            <table aria-label="Error groups">
              <thead>
                <tr>
                  <th scope="col">Error</th>
                  <th scope="col">Events</th>
                  <th scope="col">Customers</th>
                  <th scope="col">Last release</th>
                  <th scope="col">First seen</th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((g) => (
                  <tr data-fingerprint={g.fingerprint}>
                    <td>
                      <a href={linkTo(props, 'errors', g.fingerprint)}>{g.name}</a>
                      <div class="muted">{[g.type, g.message].filter(Boolean).join(': ')}</div>
                    </td>
                    <td>{g.count}</td>
                    <td>{g.customers}</td>
                    <td>{g.lastRelease ?? '—'}</td>
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
            <p class="inline-form">
              {cursor && (
                <button type="button" onClick={() => setCursor(null)}>
                  First page
                </button>
              )}
              {page.hasMore && page.nextCursor && (
                <button type="button" onClick={() => setCursor(page.nextCursor)}>
                  Next page
                </button>
              )}
            </p>
          </>
        )}
      </Show>
    </section>
  );
}

function SampleView({ page, fingerprint }: { page: PageProps; fingerprint: string }) {
  const [detail] = useResource<Detail>(inProject(page.projectId, page.env, `/errors/${encodeURIComponent(fingerprint)}`));
  return (
    <Show resource={detail}>
      {(d) => {
        const s = d.latestSample;
        return (
          <article class="card" aria-label="Error sample">
            <h2>
              {d.name}: {s?.message ?? d.message ?? ''}
            </h2>
            <p class="muted">
              {d.count} events · {d.customers} customers · first <Time ms={d.firstSeen} /> · last <Time ms={d.lastSeen} />
            </p>
            {!s && <p class="empty">No sample is kept for this group (its customer was erased).</p>}
            {s && (
              <>
                <p class="muted">
                  Latest event <code>{s.eventId}</code> at <Time ms={s.timestamp} /> · release {s.release ?? 'unknown'}
                  {s.serviceCustomerId && (
                    <>
                      {' '}
                      · customer <a href={linkTo(page, 'customers', s.serviceCustomerId)}>{s.serviceCustomerId}</a>
                    </>
                  )}
                </p>
                {s.frames.length === 0 ? (
                  <p class="empty">This event carries no stack trace.</p>
                ) : (
                  <ol class="frames" aria-label="Symbolicated stack">
                    {s.frames.map((f) => (
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
                {s.rawStack && (
                  <details>
                    <summary>Raw stack</summary>
                    <pre>{s.rawStack}</pre>
                  </details>
                )}
              </>
            )}
          </article>
        );
      }}
    </Show>
  );
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
