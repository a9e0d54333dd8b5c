/** The App Store-shaped certificate chain lives beside the benchmark, which drives it too. */
export * from '../../../functions/src/bench/rails/appleChain';
