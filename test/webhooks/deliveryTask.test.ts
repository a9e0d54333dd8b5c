/**
 * Guarantees of the deployed `webhookDeliveryTask` (index.ts): the function Cloud Tasks calls
 * runs the delivery handler through the handler table, with the deployed dependencies (secret
 * store by reference, settings), and delivers a signed event. Driven through
 * firebase-functions-test's `wrap`.
 */
import functionsTest from 'firebase-functions-test';
import { secretEnvVarName } from '../../functions/src/secrets/store';
import { deliveryTaskId } from '../../functions/src/webhooks/eventModel';
import { signingSecretRef } from '../../functions/src/webhooks/signingSecret';
import { requireDeployedEntry } from '../support/functionsEnv';
import { createTestService } from '../support/harness';
import { addEndpoint, deliveryRecord, lastV1Verifies, newProject, Receiver, recordEvent, secretsFile } from './deliverySupport';

const fft = functionsTest({ projectId: process.env.GCLOUD_PROJECT });
afterAll(() => fft.cleanup());

it('webhookDeliveryTask delivers the event its task names', async () => {
  const file = secretsFile();
  const service = createTestService();
  const receiver = await Receiver.start();
  try {
    const projectId = await newProject(service.deps);
    const { endpointId, secret } = await addEndpoint(service.deps, file, projectId, 'test', receiver.url());
    // The deployed function reads the secret by reference, and its settings, from the environment.
    process.env[secretEnvVarName(projectId, signingSecretRef(endpointId, 1))] = secret;
    process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK = 'on';
    service.clock.set(Date.now());
    const event = await recordEvent(service.deps, projectId, 'test', 'entitlement.granted', { sequence: 1 });

    const wrapped = fft.wrap(requireDeployedEntry().webhookDeliveryTask as never);
    await wrapped({ data: { projectId, env: 'test', eventId: event.eventId, endpointId } } as never);

    expect(receiver.requests).toHaveLength(1);
    expect(lastV1Verifies(receiver.requests[0].headers['service-signature'] as string, receiver.requests[0].body, secret, Math.floor(Date.now() / 1000))).toBe(true);
    expect(await deliveryRecord(service.deps, projectId, 'test', deliveryTaskId(event.eventId, endpointId))).toMatchObject({ state: 'delivered', attemptCount: 1 });
  } finally {
    delete process.env.TESSERA_WEBHOOKS_ALLOW_LOOPBACK;
    await receiver.close();
  }
});
