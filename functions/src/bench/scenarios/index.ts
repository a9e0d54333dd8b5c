import type { Scenario } from '../scenario';
import { entitlementScenarios } from './entitlements';
import { eventScenarios } from './events';
import { identityScenarios } from './identity';
import { platformScenarios } from './platform';
import { railScenarios } from './rails';
import { sourcemapScenarios } from './sourcemaps';

/** Every benchmark scenario, in report order. A capability adds its file here. */
export const SCENARIOS: Scenario[] = [...platformScenarios, ...eventScenarios, ...sourcemapScenarios, ...entitlementScenarios, ...identityScenarios, ...railScenarios];
