import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { inProject } from '../api';
import { linkTo, type PageProps } from '../context';
import { Field, Show, useResource } from '../ui';

interface Overview {
  range: { from: number; to: number; days: number };
  counts: { apps: number; openConflicts: number; webhookEndpoints: number };
  series: { dayStarts: number[]; events: number[]; errors: number[] };
  truncated: boolean;
}

export function OverviewPage(props: PageProps) {
  const [days, setDays] = useState('30');
  const [overview] = useResource<Overview>(inProject(props.projectId, props.env, `/overview?days=${days}`));
  return (
    <section>
      <form class="inline-form" onSubmit={(e) => e.preventDefault()}>
        <Field label="Range">
          {(id) => (
            <select id={id} value={days} onChange={(e) => setDays(e.currentTarget.value)}>
              <option value="7">Last 7 days</option>
              <option value="30">Last 30 days</option>
              <option value="90">Last 90 days</option>
            </select>
          )}
        </Field>
      </form>
      <Show resource={overview}>
        {(o) => (
          <>
            <div class="tiles">
              <a class="tile" href={linkTo(props, 'apps')}>
                <span class="figure">{o.counts.apps}</span> apps
              </a>
              <a class="tile" href={linkTo(props, 'conflicts')}>
                <span class="figure">{o.counts.openConflicts}</span> open conflicts
              </a>
              <a class="tile" href={linkTo(props, 'webhooks')}>
                <span class="figure">{o.counts.webhookEndpoints}</span> webhook endpoints
              </a>
              <a class="tile" href={linkTo(props, 'errors')}>
                <span class="figure">{o.series.errors.reduce((a, b) => a + b, 0)}</span> errors in range
              </a>
            </div>
            <article class="card">
              <h2>Events and errors per day (UTC)</h2>
              {o.series.events.every((n) => n === 0) ? <p class="empty">No events in this range.</p> : <Chart overview={o} />}
              {o.truncated && <p class="muted">Counted from the newest 5,000 events of the range.</p>}
            </article>
          </>
        )}
      </Show>
    </section>
  );
}

function Chart({ overview }: { overview: Overview }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const width = Math.max(320, host.current.clientWidth || 720);
    const plot = new uPlot(
      {
        width,
        height: 240,
        scales: { x: { time: true } },
        series: [{}, { label: 'Events', stroke: '#2563eb', width: 2 }, { label: 'Errors', stroke: '#dc2626', width: 2 }],
        axes: [{}, { label: 'per day' }],
      },
      [overview.series.dayStarts.map((ms) => ms / 1000), overview.series.events, overview.series.errors],
      host.current,
    );
    return () => plot.destroy();
  }, [overview]);
  return <div ref={host} class="chart" role="img" aria-label={`Events and errors per day over ${overview.range.days} days`} />;
}
