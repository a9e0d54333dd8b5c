import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { inProject } from '../api';
import { linkTo, type PageProps } from '../context';
import { Field, Show, useResource } from '../ui';
import type { Overview } from '../../../functions/src/wire/dashboard';


const money = (minor: number, currency: string): string => {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(minor / 100);
  } catch {
    return `${(minor / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
};

const COLORS = ['#15803d', '#7c3aed', '#b45309', '#0e7490'];

/** Charts of the reporting services over a chosen range, and the partition's counts. */
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
              <div class="tile">
                <span class="figure">{o.counts.activeSubscribers}</span> active subscriptions now
              </div>
              <div class="tile">
                <span class="figure">{o.mrr.length ? o.mrr.map((m) => money(m.amount, m.currency)).join(' · ') : '—'}</span> MRR
              </div>
              <a class="tile" href={linkTo(props, 'errors')}>
                <span class="figure">
                  {o.counts.errorGroups}
                  {o.counts.errorGroupsMore ? '+' : ''}
                </span>{' '}
                error groups seen in range
              </a>
              <a class="tile" href={linkTo(props, 'conflicts')}>
                <span class="figure">{o.counts.openConflicts}</span> open conflicts
              </a>
              <a class="tile" href={linkTo(props, 'apps')}>
                <span class="figure">{o.counts.apps}</span> apps
              </a>
              <a class="tile" href={linkTo(props, 'webhooks')}>
                <span class="figure">{o.counts.webhookEndpoints}</span> webhook endpoints
              </a>
            </div>
            <article class="card">
              <h2>Active subscriptions per day (UTC)</h2>
              {o.subscribersByKey.length > 0 && <p class="muted">Now: {o.subscribersByKey.map((k) => `${k.entitlementKey} ${k.active}`).join(', ')}</p>}
              {o.series.activeSubscribers.every((n) => n === 0) ? <p class="empty">No active subscriptions in this range.</p> : <Chart label="Active subscriptions" dayStarts={o.series.dayStarts} series={[{ label: 'Active', values: o.series.activeSubscribers, color: COLORS[0] }]} />}
            </article>
            <article class="card">
              <h2>Net revenue per day (UTC)</h2>
              {o.series.netRevenue.length === 0 ? (
                <p class="empty">No revenue in this range.</p>
              ) : (
                <Chart label="Net revenue" dayStarts={o.series.dayStarts} series={o.series.netRevenue.map((c, i) => ({ label: `${c.currency.toUpperCase()} (minor units)`, values: c.values, color: COLORS[(i + 1) % COLORS.length] }))} />
              )}
            </article>
            <article class="card">
              <h2>Events per day (UTC)</h2>
              {o.series.events.every((n) => n === 0) ? <p class="empty">No events in this range.</p> : <Chart label="Events" dayStarts={o.series.dayStarts} series={[{ label: 'Events', values: o.series.events, color: '#2563eb' }]} />}
            </article>
          </>
        )}
      </Show>
    </section>
  );
}

function Chart({ label, dayStarts, series }: { label: string; dayStarts: number[]; series: { label: string; values: number[]; color: string }[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const width = Math.max(320, host.current.clientWidth || 720);
    const plot = new uPlot(
      {
        width,
        height: 200,
        scales: { x: { time: true } },
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2 }))],
        axes: [{}, {}],
      },
      [dayStarts.map((ms) => ms / 1000), ...series.map((s) => s.values)],
      host.current,
    );
    return () => plot.destroy();
  }, [dayStarts, series]);
  return <div ref={host} class="chart" role="img" aria-label={`${label} per day over ${dayStarts.length} days`} />;
}
