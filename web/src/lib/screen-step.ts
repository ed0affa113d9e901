/**
 * What a screen adds to a feature's mutation (navigating, resetting its fields, showing a one-time secret). The
 * feature's hook calls it where its JSDoc says, between its toast and its cache refresh, so the order stays the
 * hook's and the step runs even if the screen has unmounted.
 */
export interface ScreenStep<TData, TVariables = void> {
  onSuccess?: (data: TData, variables: TVariables) => void;
}
