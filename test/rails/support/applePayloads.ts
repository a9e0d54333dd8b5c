/** App Store payload builders shared with the benchmark. */
export * from '../../../functions/src/bench/rails/applePayloads';
