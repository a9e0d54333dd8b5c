import type { RootDeps } from '#functions/app/deps';
import type { RailWiring } from './serverProtocol';

/** Points a process's rail edges at the bench's local fakes (the server's and the task worker's alike). */
export function wireRails(deps: RootDeps, wiring: RailWiring): void {
  Object.assign(process.env, wiring.secrets);
  const { rails } = deps;
  rails.apple.onlineChecks = false;
  rails.stripe.api = { host: '127.0.0.1', port: wiring.fakesPort, protocol: 'http' };
  rails.google.pushJwksUrl = wiring.jwksUrl;
  rails.google.playRootUrl = `${wiring.fakesUrl}/`;
  rails.google.playAuth = async () => 'bench-api-key';
}
