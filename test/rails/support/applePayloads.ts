/** App Store payload builders shared with the benchmark (fixtures/). */
export * from '../../../fixtures/applePayloads';
