/**
 * A failure the caller can act on. Thrown anywhere; turned into HTTP exactly once, by `errorHandler`.
 * `status` is the HTTP status it maps to; `retryable` tells clients (and the bus) whether trying again can help.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    readonly retryable = false,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what: string, code = 'NOT_FOUND') => new AppError(code, `${what} not found`, 404);
export const unauthenticated = () => new AppError('UNAUTHENTICATED', 'Authentication required', 401);
export const forbidden = (message = 'Not authorized') => new AppError('FORBIDDEN', message, 403);
