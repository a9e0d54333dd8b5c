import { configRoute } from './config';
import { healthzRoute } from './healthz';
import { heartbeatRoute } from './heartbeat';
import { versionsRoute } from './versions';

export const sdkRoutes = [healthzRoute, versionsRoute, configRoute, heartbeatRoute];
