import type { Scenario } from '../scenario';
import { entitlementScenarios } from './entitlements';
import { eventScenarios } from './events';
import { identityScenarios } from './identity';
import { migrationScenarios } from './migration';
import { platformScenarios } from './platform';
import { railScenarios } from './rails';
import { reportScenarios } from './reports';
import { sourcemapScenarios } from './sourcemaps';
import { webhookScenarios } from './webhooks';

/**
 * Every benchmark scenario, in report order. A capability adds its file here. Events come last:
 * their saturation run writes over a hundred thousand documents, after which the emulator stays
 * slower for the rest of the process, even once its data is cleared.
 */
export const SCENARIOS: Scenario[] = [...platformScenarios, ...sourcemapScenarios, ...entitlementScenarios, ...identityScenarios, ...railScenarios, ...webhookScenarios, ...reportScenarios, ...migrationScenarios, ...eventScenarios];
