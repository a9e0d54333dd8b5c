import type { Scenario } from '../scenario';
import { platformScenarios } from './platform';

/** Every benchmark scenario, in report order. A capability adds its file here. */
export const SCENARIOS: Scenario[] = [...platformScenarios];
