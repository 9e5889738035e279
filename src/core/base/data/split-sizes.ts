/** The recipe's split sizes (the first environment's prepare keeps the first TEST_SIZE dev questions for test, then up to VAL_SIZE for val); import-light so specs can check against them. */
export const TEST_SIZE = 500;
export const VAL_SIZE = 200;
