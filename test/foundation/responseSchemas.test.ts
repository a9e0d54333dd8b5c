/**
 * The tests' response check (test/support/responseCheck.ts, passed to the pipeline by the
 * harness): a reply whose shape drifts from its route's `response` schema fails, and a path
 * parameter is validated by its schema with the body's machinery (code, message, envelope).
 */
import supertest from 'supertest';
import { createApiApp } from '../../functions/src/http/pipeline';
import { route } from '../../functions/src/http/route';
import { createTestService, expectError, type TestService } from '../support/harness';
import { checkResponse, takeResponseDrifts } from '../support/responseCheck';

const answerSchema = {
  type: 'object',
  required: ['object', 'count'],
  additionalProperties: false,
  properties: { object: { const: 'answer' }, count: { type: 'integer' } },
} as const;

/** Answers `?shape=good` as its schema says, anything else with a drifted shape. */
const answer = route<unknown, { shape?: string }, { id: string }, unknown>({
  method: 'GET',
  path: '/v1/test/answer/:id',
  key: 'none',
  query: { type: 'object', properties: { shape: { type: 'string' } } },
  params: {
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'string', pattern: '^ans_[a-z]{1,8}$', 'x-code': 'invalid_customer', 'x-message': { pattern: 'id must start with `ans_`.' } } },
  },
  response: answerSchema,
  handler: async (ctx) => ({ body: ctx.query.shape === 'good' ? { object: 'answer', count: 1 } : { object: 'answer', count: '1', extra: true } }),
});

/** Two 2xx statuses, one schema each. */
const accepted = route({
  method: 'GET',
  path: '/v1/test/accepted',
  key: 'none',
  response: { 200: answerSchema, 202: { type: 'object', required: ['queued'], properties: { queued: { const: true } } } },
  handler: async () => ({ status: 202, body: { object: 'answer', count: 1 } }),
});

let service: TestService;
let request: () => supertest.Agent;
beforeAll(() => {
  service = createTestService();
  request = () => supertest.agent(createApiApp([answer, accepted], service.deps, { checkResponse }));
});
afterEach(() => {
  takeResponseDrifts();
});

it('passes a reply that matches its schema', async () => {
  const res = await request().get('/v1/test/answer/ans_ok?shape=good');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ object: 'answer', count: 1 });
  expect(takeResponseDrifts()).toEqual([]);
});

it('catches a reply whose shape drifted: 500, and the drift names the fields', async () => {
  const res = await request().get('/v1/test/answer/ans_ok?shape=bad');
  expectError(res, 500, 'internal_error', 'internal_error');
  const [drift] = takeResponseDrifts();
  expect(drift.route).toBe('GET /v1/test/answer/:id');
  expect(drift.errors.join('\n')).toMatch(/count must be integer/);
  expect(drift.errors.join('\n')).toMatch(/must NOT have additional properties: extra/);
});

it('checks each status against its own schema when the route answers more than one 2xx', async () => {
  const res = await request().get('/v1/test/accepted');
  expect(res.status).toBe(500);
  const [drift] = takeResponseDrifts();
  expect(drift.status).toBe(202);
});

it('validates path parameters with the body machinery: code, message and envelope', async () => {
  const res = await request().get('/v1/test/answer/nope?shape=good');
  expectError(res, 400, 'invalid_request_error', 'invalid_customer');
  expect(res.body.error.message).toBe('id must start with `ans_`.');
});

it('without the check (the deployed pipeline), a drifted reply is sent as it is', async () => {
  const res = await supertest(createApiApp([answer], service.deps)).get('/v1/test/answer/ans_ok?shape=bad');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ object: 'answer', count: '1', extra: true });
});
