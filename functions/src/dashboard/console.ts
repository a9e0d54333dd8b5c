import type { Firestore } from 'firebase-admin/firestore';
import type { OperatorActor } from '../audit/operatorActor';
import { auditRef } from '../audit/append';
import { toPublicAuditEntry } from '../audit/publicShape';
import { DAY, type Clock } from '../clock';
import { DomainError } from '../errors/domain';
import type { GrantDuration } from '../entitlements/durations';
import { grantManually, revokeManually } from '../entitlements/manualGrants';
import type { GrantRecord } from '../entitlements/model';
import { readCustomerGrantsGuarded } from '../entitlements/projection';
import { errorGroupDetail, errorsReport, eventsReport, revenueReport, subscribersReport } from '../reports';
import type { ErrorsReport } from '../wire/reports';
import { keepSeparate, listConflicts, mergeConflict } from '../identity/conflicts';
import { readIdentityProvider } from '../identity/providerConfig';
import { readTransferBehavior } from '../identity/transferPolicy';
import { eraseAsOperator } from '../identity/forgetService';
import { customerAuditPage, customerEventsPage, type RecentEvent } from './customerHistory';
import { listCustomers, type CustomerListQuery } from './customerList';
import { inspectCustomer, type CustomerInspection } from '../identity/inspect';
import { identityRef } from '../customers/refs';
import { createKeys, listKeys, revokeKey, rotateKey, type OperatorCall } from '../keys/lifecycle';
import type { Platform } from '../wire/vocabulary';
import { createApp } from '../projects/repository';
import { createOperatorSecretWriter, type SecretWriter } from '../secrets/writer';
import { readRailsConfig } from '../rails/config';
import { describeRails, RAIL_SETTING_FIELDS, rootCertificateBase64, setAppleRail, setGoogleRail, setStripeRail, type GoogleRailInput, type RailChangeOrigin } from '../rails/operatorSettings';
import { listManifests } from '../sourcemaps/repository';
import { EnvScope } from '../store/scope';
import type { TaskQueue } from '../tasks/queue';
import { createEndpoint, deleteEndpoint, disableEndpoint, enableEndpoint, listEndpoints, rotateEndpointSecret, updateEndpoint, type EndpointDeps } from '../webhooks/endpoints';
import { listDeliveries, replayEvent, sendTestEvent } from '../webhooks/operator';
import { appendAudit, newServerEventId } from '../audit/append';
import { operatorChangeEntry } from '../audit/operatorActor';
import type { OperatorGrant } from './model';
import { appsCollection } from '../projects/paths';

/**
 * What a signed-in operator can do in one project and environment (the grant the request was
 * authorised for): every action calls the SAME operator service the CLI calls (keys/lifecycle,
 * projects/repository, identity/conflicts, entitlements/manualGrants, identity/forgetService,
 * webhooks/endpoints, sourcemaps/resolve), with the operator as the audited actor and the
 * grant's project and environment as the only partition it can reach. Built per request by the
 * authenticator; the handle stays private to it.
 */
export interface ConsolePorts {
  clock: Clock;
  tasks: TaskQueue;
  /** Where webhook signing secrets are written; by default the CLI's choice (Secret Manager deployed, .secrets.local.json locally). */
  secrets?: SecretWriter;
  allowLoopbackWebhooks: boolean;
}

export class OperatorConsole {
  readonly scope: EnvScope;
  private readonly call: OperatorCall;

  constructor(
    private readonly db: Firestore,
    readonly grant: OperatorGrant,
    readonly actor: OperatorActor,
    private readonly ports: ConsolePorts,
  ) {
    this.scope = new EnvScope(db, grant.projectId, grant.env);
    this.call = { actor, projectId: grant.projectId, env: grant.env };
  }

  private now(): number {
    return this.ports.clock.now();
  }

  // Overview -------------------------------------------------------------------------------

  /**
   * The Overview: the reporting services (reports/index.ts) over the last `days` UTC days — active
   * subscribers per day and now, revenue per day and MRR, stored events per day, error groups
   * seen — plus the partition's apps, open conflicts and webhook endpoints.
   */
  async overview(days: number) {
    const now = this.now();
    const range = { from: startOfUtcDay(now) - (days - 1) * DAY, to: now, granularity: 'day' as const };
    const [subscribers, revenue, events, errors, apps, conflicts, endpoints] = await Promise.all([
      subscribersReport(this.scope, range, now),
      revenueReport(this.scope, range, now),
      eventsReport(this.scope, range, now),
      errorsReport(this.scope, { from: range.from, to: now, cursor: null, limit: 100 }),
      this.db.collection('apps').where('projectId', '==', this.grant.projectId).get(),
      listConflicts(this.scope),
      listEndpoints(this.scope, now),
    ]);
    const dayStarts = Array.from({ length: days }, (_, i) => range.from + i * DAY);
    const perDay = <T extends { t: number }>(rows: readonly T[], value: (row: T) => number): number[] =>
      dayStarts.map((t) => rows.filter((r) => r.t === t).reduce((sum, r) => sum + value(r), 0));
    const currencies = [...new Set(revenue.data.map((r) => r.currency))].sort();
    return {
      range: { from: range.from, to: now, days },
      counts: {
        apps: apps.size,
        openConflicts: conflicts.length,
        webhookEndpoints: endpoints.length,
        activeSubscribers: subscribers.totals.reduce((sum, t) => sum + t.active, 0),
        errorGroups: errors.data.length,
        errorGroupsMore: errors.hasMore,
      },
      subscribersByKey: subscribers.totals,
      mrr: revenue.mrr,
      series: {
        dayStarts,
        activeSubscribers: perDay(subscribers.series, (r) => r.active),
        events: perDay(events.data, (r) => r.count),
        netRevenue: currencies.map((currency) => ({ currency, values: perDay(revenue.data.filter((r) => r.currency === currency), (r) => r.net) })),
      },
    };
  }

  // Apps and keys ---------------------------------------------------------------------------

  /** The project's apps with this environment's keys and key activity (newest activity first). */
  async apps() {
    const snapshot = await appsCollection(this.db).where('projectId', '==', this.grant.projectId).get();
    const apps = snapshot.docs.map((d) => d.data()).sort((a, b) => a.createdAt - b.createdAt || a.appId.localeCompare(b.appId));
    const now = this.now();
    return Promise.all(
      apps.map(async (app) => {
        const { keys, activity } = await listKeys(this.db, app.appId, now);
        return {
          appId: app.appId,
          name: app.name,
          platform: app.platform,
          allowedOrigins: app.allowedOrigins,
          bundleId: app.bundleId,
          packageName: app.packageName,
          archived: app.archived,
          createdAt: app.createdAt,
          keys: keys.filter((k) => k.env === this.grant.env),
          activity: activity.filter((a) => a.env === this.grant.env).reverse(),
        };
      }),
    );
  }

  async createApp(input: { platform: Platform; name?: string; allowedOrigins: string[]; bundleId?: string; packageName?: string }) {
    const app = await createApp(this.db, { projectId: this.grant.projectId, ...input }, this.now(), undefined, this.actor);
    return { appId: app.appId, name: app.name, platform: app.platform, auditEventId: app.auditEventId };
  }

  /** Both keys of this environment; the plaintexts are in this answer only. */
  createKeys(appId: string) {
    return createKeys(this.db, { appId, env: this.grant.env }, this.now(), this.call);
  }

  rotateKey(keyId: string, graceMs: number) {
    return rotateKey(this.db, keyId, graceMs, this.now(), this.call);
  }

  revokeKey(keyId: string) {
    return revokeKey(this.db, keyId, this.now(), this.call);
  }

  // Customers -------------------------------------------------------------------------------

  /**
   * Customers matching a `cdcust_` id, a developer user id, an anonymous id or an email (each
   * an exact match; identity lookups are document reads by id, email a query).
   */
  async findCustomers(query: string): Promise<{ customerId: string; matchedBy: string }[]> {
    const found = new Map<string, string>();
    if (query.startsWith('cdcust_')) {
      const snapshot = await this.scope.get(this.scope.doc('customers', query));
      if (snapshot.exists) found.set(query, 'customer id');
    }
    const [developer, anonymous] = await Promise.all([this.identity('developer', query), this.identity('anonymous', query)]);
    if (developer) found.set(developer, found.get(developer) ?? 'user id');
    if (anonymous) found.set(anonymous, found.get(anonymous) ?? 'anonymous id');
    if (query.includes('@')) {
      const byEmail = await this.scope.query(this.scope.collection('customers').where('email', '==', query).limit(20));
      for (const doc of byEmail.docs) if (!found.has(doc.id)) found.set(doc.id, 'email');
    }
    return [...found].map(([customerId, matchedBy]) => ({ customerId, matchedBy }));
  }

  private async identity(kind: 'developer' | 'anonymous', id: string): Promise<string | null> {
    if (id.length === 0 || id.length > 256 || id.includes('/')) return null;
    const snapshot = await this.scope.get(identityRef(this.scope, kind, id));
    return snapshot.data()?.customerId ?? null;
  }

  /** One customer: identities, traits, active and past grants, and the first page of its audit trail and of its events (newest first). */
  async customer(customerId: string): Promise<
    CustomerInspection & { grants: GrantRecord[]; audit: ReturnType<typeof toPublicAuditEntry>[]; auditNextCursor: string | null; recentEvents: RecentEvent[]; eventsNextCursor: string | null }
  > {
    const inspection = await inspectCustomer(this.scope, { customerId }, this.now());
    const [grants, audit, events] = await Promise.all([
      readCustomerGrantsGuarded(this.scope, customerId),
      customerAuditPage(this.scope, customerId, null),
      customerEventsPage(this.scope, customerId, null),
    ]);
    return {
      ...inspection,
      grants: [...grants].sort((a, b) => b.createdAt - a.createdAt || a.grantId.localeCompare(b.grantId)),
      audit: audit.data,
      auditNextCursor: audit.nextCursor,
      recentEvents: events.data,
      eventsNextCursor: events.nextCursor,
    };
  }

  /** Customers, newest first, filtered and searched through indexes (customerList.ts). */
  listCustomers(query: CustomerListQuery) {
    return listCustomers(this.scope, query, this.now());
  }

  /** The next page of a customer's audit trail or events (the cursor of the previous page). */
  customerAudit(customerId: string, cursor: string | null) {
    return customerAuditPage(this.scope, customerId, cursor);
  }

  customerEvents(customerId: string, cursor: string | null) {
    return customerEventsPage(this.scope, customerId, cursor);
  }

  grantEntitlement(customerId: string, entitlementKey: string, duration: GrantDuration, reason: string) {
    return grantManually(this.scope, { customerId, entitlementKey, duration, reason }, this.grantActor(), this.now());
  }

  revokeEntitlement(customerId: string, entitlementKey: string, reason: string) {
    return revokeManually(this.scope, { customerId, entitlementKey, reason }, this.grantActor(), this.now());
  }

  async erase(customerId: string) {
    const snapshot = await this.scope.get(this.scope.doc('customers', customerId));
    if (!snapshot.exists) throw new DomainError('not_found', `No customer ${customerId} in this project and environment.`);
    return eraseAsOperator(this.ports.tasks, this.scope, customerId, this.actor, this.now());
  }

  private grantActor() {
    return { requestId: this.actor.requestId ?? '', operator: this.actor.operator ?? this.grant.identity.email };
  }

  // Conflicts -------------------------------------------------------------------------------

  /** The project's identity settings (read-only here: the CLI changes them). */
  async identitySettings() {
    const [provider, subscriptionTransfer] = await Promise.all([readIdentityProvider(this.db, this.grant.projectId), readTransferBehavior(this.db, this.grant.projectId)]);
    return { providerConfigured: provider !== null, requireVerifiedIdentity: provider?.requireVerifiedIdentity === true, subscriptionTransfer };
  }

  /** Open conflicts, each with its customers side by side (a customer gone since is null). */
  async conflicts() {
    const open = await listConflicts(this.scope);
    const now = this.now();
    return Promise.all(
      open.map(async (conflict) => ({
        ...conflict,
        customers: await Promise.all(
          [conflict.canonicalCustomerId, ...conflict.otherCustomerIds].map((customerId) =>
            inspectCustomer(this.scope, { customerId }, now).catch((err: unknown) => {
              if (err instanceof DomainError && err.code === 'not_found') return null;
              throw err;
            }),
          ),
        ),
      })),
    );
  }

  resolveConflict(conflictId: string, decision: 'merge' | 'keep_separate') {
    return decision === 'merge' ? mergeConflict(this.scope, conflictId, this.now(), this.actor, this.ports.tasks) : keepSeparate(this.scope, conflictId, this.now(), this.actor);
  }

  // Rails ----------------------------------------------------------------------------------

  async rails() {
    return describeRails(this.scope, await readRailsConfig(this.scope));
  }

  /** A refusal names the request body's field the operator filled in, not a CLI flag. */
  private railChange(): RailChangeOrigin {
    return { actor: this.actor, names: RAIL_SETTING_FIELDS };
  }

  async setStripeRail(input: { secretKeyRef: string; webhookSecretRef: string }) {
    const { auditEventId } = await setStripeRail(this.scope, input, this.now(), this.railChange());
    return { rails: await this.rails(), auditEventId };
  }

  /** Root certificates arrive as PEM or base64 DER text; none keeps the configured ones. */
  async setAppleRail(input: { bundleId: string; appAppleId: number | null; rootCertificates: string[] }) {
    const rootCertificates = input.rootCertificates.map((text, i) => {
      const trimmed = text.trim();
      const base64 = rootCertificateBase64(trimmed.startsWith('-----BEGIN') ? Buffer.from(trimmed, 'utf8') : Buffer.from(trimmed, 'base64'));
      if (base64 === null) throw new DomainError('invalid_argument', `rootCertificates[${i}] is not an X.509 certificate (PEM or base64 DER).`);
      return base64;
    });
    const { auditEventId } = await setAppleRail(this.scope, { bundleId: input.bundleId, appAppleId: input.appAppleId, rootCertificates }, this.now(), this.railChange());
    return { rails: await this.rails(), auditEventId };
  }

  async setGoogleRail(input: GoogleRailInput) {
    const { auditEventId } = await setGoogleRail(this.scope, input, this.now(), this.railChange());
    return { rails: await this.rails(), auditEventId };
  }

  // Audit -----------------------------------------------------------------------------------

  async auditEntry(eventId: string) {
    const snapshot = await this.scope.get(auditRef(this.scope, eventId));
    const entry = snapshot.data() ?? null;
    if (!entry || entry.projectId !== this.grant.projectId || entry.env !== this.grant.env) throw new DomainError('not_found', `No audit entry ${eventId} in this project and environment.`);
    return toPublicAuditEntry(entry);
  }

  // Errors ----------------------------------------------------------------------------------

  /** Error groups last seen in the range, newest first, a page at a time (reports/errorsReport.ts). */
  errorGroups(days: number, cursor: string | null): Promise<ErrorsReport> {
    const now = this.now();
    return errorsReport(this.scope, { from: startOfUtcDay(now) - (days - 1) * DAY, to: now, cursor, limit: 50 });
  }

  /** A group with its latest sample, its stack symbolicated through the release's source maps (reports/errorDetail.ts). */
  errorGroup(fingerprint: string) {
    return errorGroupDetail(this.scope, fingerprint);
  }

  /** A release's source maps: file URL, size, content hash, upload time (never the map itself). */
  async releaseSourceMaps(release: string) {
    const manifests = await listManifests(this.scope, release);
    return manifests.map(({ fileUrl, fileUrlHash, contentHash, byteLength, uploadedAt, uploadedByKeyId }) => ({ fileUrl, fileUrlHash, contentHash, byteLength, uploadedAt, uploadedByKeyId }));
  }

  // Webhook endpoints -----------------------------------------------------------------------

  private endpointDeps(): EndpointDeps {
    return { secrets: this.ports.secrets ?? createOperatorSecretWriter(), now: this.now(), surface: 'dashboard', operator: this.actor.operator ?? undefined };
  }

  webhookEndpoints() {
    return listEndpoints(this.scope, this.now());
  }

  createWebhookEndpoint(url: string, eventTypes: string[]) {
    return createEndpoint(this.scope, { url, eventTypes, allowLoopbackHttp: this.ports.allowLoopbackWebhooks }, this.endpointDeps());
  }

  /** A new URL and/or event types (as `tessera webhooks update`). */
  updateWebhookEndpoint(endpointId: string, change: { url?: string; eventTypes?: string[] }) {
    return updateEndpoint(this.scope, endpointId, { ...change, allowLoopbackHttp: this.ports.allowLoopbackWebhooks }, this.endpointDeps());
  }

  /** Deletes the endpoint and its signing secrets (as `tessera webhooks delete`). */
  deleteWebhookEndpoint(endpointId: string) {
    return deleteEndpoint(this.scope, endpointId, this.endpointDeps());
  }

  disableWebhookEndpoint(endpointId: string, note: string | null) {
    return disableEndpoint(this.scope, endpointId, note, this.endpointDeps());
  }

  enableWebhookEndpoint(endpointId: string) {
    return enableEndpoint(this.scope, endpointId, this.endpointDeps());
  }

  rotateWebhookSecret(endpointId: string, graceMs: number) {
    return rotateEndpointSecret(this.scope, endpointId, graceMs, this.endpointDeps());
  }

  /** An endpoint's deliveries, newest first, with every attempt's status (webhooks/operator.ts, as `tessera webhooks deliveries`). */
  webhookDeliveries(endpointId: string, eventId: string | null) {
    return listDeliveries(this.scope, endpointId, eventId);
  }

  /** Sends a `webhook.test` event to one endpoint (as `tessera webhooks test`), audited with the operator. */
  async sendWebhookTestEvent(endpointId: string) {
    const result = await sendTestEvent(this.scope, endpointId, { tasks: this.ports.tasks, now: this.now() });
    const auditEventId = await this.auditDeliveryRequest('test_sent', `Operator sent a test event to webhook endpoint ${endpointId}.`, { endpointId, eventId: result.eventId, deliveryIds: [result.deliveryId] });
    return { eventId: result.eventId, endpointId, deliveryId: result.deliveryId, auditEventId };
  }

  /** A new delivery of an event (as `tessera webhooks replay`), audited with the operator. */
  async replayWebhookEvent(eventId: string, endpointId: string | null) {
    const result = await replayEvent(this.scope, eventId, endpointId, { tasks: this.ports.tasks, now: this.now() });
    const deliveryIds = result.deliveries.map((d) => d.deliveryId);
    const auditEventId = await this.auditDeliveryRequest('replayed', `Operator replayed webhook event ${eventId}${endpointId ? ` to ${endpointId}` : ''}.`, { eventId, endpointId, replay: result.replay, deliveryIds });
    return { eventId, replay: result.replay, deliveries: result.deliveries.map(({ endpointId: id, deliveryId }) => ({ endpointId: id, deliveryId })), auditEventId };
  }

  /**
   * The delivery services queue their tasks outside any transaction (a queued task is the
   * effect), so the operator's request is audited once it has been queued.
   */
  private async auditDeliveryRequest(action: 'test_sent' | 'replayed', reason: string, details: Record<string, unknown>): Promise<string> {
    const eventId = newServerEventId('webhook');
    const now = this.now();
    await this.scope.runTransaction(async (tx) => {
      appendAudit(tx, this.scope, operatorChangeEntry({ eventId, eventType: `webhook_delivery.${action}`, reason, fromState: null, toState: null, now, actor: this.actor, details }));
    });
    return eventId;
  }
}

const startOfUtcDay = (ms: number): number => ms - (ms % DAY);

