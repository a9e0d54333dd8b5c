/** Messages between the bench (parent) and the server it measures (bench/server.ts, a child process). */

/** Where the rails' network edges point for the rail scenarios (local fakes). */
export interface RailWiring {
  fakesUrl: string;
  fakesPort: number;
  jwksUrl: string;
  /** Environment the local secret store reads references from. */
  secrets: Record<string, string>;
}

export type ServerRequest =
  | { id: number; type: 'drain' }
  | { id: number; type: 'cpu' }
  | { id: number; type: 'wireRails'; wiring: RailWiring }
  /** Secret values the server's local secret store reads from its environment (webhook signing secrets). */
  | { id: number; type: 'setSecrets'; secrets: Record<string, string> };

export type ServerReply = { id: number; seconds?: number; cpuMicros?: number; error?: string };

export interface ServerReady {
  type: 'ready';
  baseUrl: string;
  unmeteredUrl: string;
  floorUrl: string;
}
