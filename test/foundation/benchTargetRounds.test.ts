import { acrossRounds } from '../../fixtures/benchTargetRounds';

describe('targets across bench rounds', () => {
  it('groups each scenario and target over the rounds, met only in the rounds that met it', () => {
    const rows = [
      '| [round 1] POST /v1/events, saturation | server CPU per request vs its floor ≤ 2× (issue 23) | 1.77× (4.02 vs 2.27 ms) | yes |',
      '| [round 1] POST /v1/webhooks/stripe | store round trips ≤ 6 (issue 23) | 4 | yes |',
      '| [round 2] POST /v1/events, saturation | server CPU per request vs its floor ≤ 2× (issue 23) | 2.24× (3.68 vs 1.64 ms) | no |',
      '| [round 2] POST /v1/webhooks/stripe | store round trips ≤ 6 (issue 23) | 4 | yes |',
    ];
    expect(acrossRounds(rows)).toEqual([
      '| POST /v1/events, saturation | server CPU per request vs its floor ≤ 2× (issue 23) | 1 of 2 | 1.77× (4.02 vs 2.27 ms); 2.24× (3.68 vs 1.64 ms) |',
      '| POST /v1/webhooks/stripe | store round trips ≤ 6 (issue 23) | 2 of 2 | 4; 4 |',
    ]);
  });

  it('keeps each task shape apart, grouping only its rounds', () => {
    const rows = [
      '| [held, round 1] POST /v1/events | background left ≤ 2 s (issue 23) | 0.4 s | yes |',
      '| [deployed, round 1] POST /v1/events | background left ≤ 2 s (issue 23) | 1.1 s | yes |',
      '| [held, round 2] POST /v1/events | background left ≤ 2 s (issue 23) | 2.6 s | no |',
    ];
    expect(acrossRounds(rows)).toEqual([
      '| [held] POST /v1/events | background left ≤ 2 s (issue 23) | 1 of 2 | 0.4 s; 2.6 s |',
      '| [deployed] POST /v1/events | background left ≤ 2 s (issue 23) | 1 of 1 | 1.1 s |',
    ]);
  });
});
