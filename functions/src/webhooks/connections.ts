import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { BoundedMap } from '../boundedMap';

/**
 * Kept-alive connections to checked destinations, so that a healthy receiver's next delivery
 * skips the TCP (and TLS) handshake. An agent belongs to ONE endpoint, ONE origin and ONE checked
 * address: its DNS lookup answers that address only, so every socket it opens, and every socket
 * it hands out again, goes there. An attempt still resolves and checks the destination before
 * it takes an agent (deliver.ts), and takes the agent of the address it checked: a host that
 * now resolves elsewhere gets another agent, one that now resolves to a refused address is
 * refused before any agent is used. No connection carries two endpoints' deliveries.
 */

/** Agents kept at most (the least recently used is retired first: `retireAgent`). */
const MAX_AGENTS = 256;
/** Idle connections kept per agent. */
const MAX_IDLE_SOCKETS = 4;
/** An idle connection is closed after this long (sooner when the receiver's `Keep-Alive: timeout=` says so: node's agent honours it). */
const IDLE_SOCKET_MS = 30_000;

/** A DNS lookup that answers `address` whatever the name: the connection goes where the check approved. */
export function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/**
 * Closes an agent the bound pushed out: its idle connections now, each busy one as its attempt
 * ends (an agent keeps no free socket past `maxFreeSockets`), so a flood of endpoints cannot hold
 * connections open beyond the bound. Attempts in flight on it finish undisturbed.
 */
export function retireAgent(agent: http.Agent): void {
  agent.maxFreeSockets = 0;
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

export class DestinationConnections {
  private readonly agents: BoundedMap<string, http.Agent>;

  constructor(maxAgents = MAX_AGENTS) {
    this.agents = new BoundedMap(maxAgents, (_key, agent) => retireAgent(agent));
  }

  /** The agent for deliveries of `endpointId` to `url`'s origin at the checked `address`. */
  agentFor(endpointId: string, url: URL, address: string): http.Agent {
    const key = `${endpointId} ${url.protocol}//${url.host} ${address}`;
    const options = { keepAlive: true, maxFreeSockets: MAX_IDLE_SOCKETS, timeout: IDLE_SOCKET_MS, lookup: pinnedLookup(address) };
    const agent = this.agents.get(key) ?? (url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options));
    this.agents.set(key, agent); // the newest again: the least recently used is the one dropped
    return agent;
  }
}

/** The process's kept connections (one per process, as firebase-admin keeps its clients). */
export const destinationConnections = new DestinationConnections();
