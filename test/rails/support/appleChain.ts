/** The App Store-shaped certificate chain lives in fixtures/, which the benchmark drives too. */
export * from '../../../fixtures/appleChain';
