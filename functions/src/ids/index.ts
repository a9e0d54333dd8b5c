/** Every identifier of the service, once: prefix, pattern and JSON Schema (README.md). */
export { APP_ID, KEY_ID, PROJECT_ID } from './tenancy';
export { ANONYMOUS_ID, APP_ACCOUNT_TOKEN, CUSTOMER_ID, DEVELOPER_USER_ID } from './people';
export { AUDIT_EVENT_ID, CONFLICT_ID, ENTITLEMENT_KEY, ERROR_FINGERPRINT, RELEASE, SERVER_EVENT_ID_PREFIX, WEBHOOK_ENDPOINT_ID, WEBHOOK_EVENT_ID } from './records';
