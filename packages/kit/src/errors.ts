export { AppError, type AppErrorOptions, ERROR_CODES, type ErrorCode, isErrorCode } from '@formgate/contracts';

import { AppError } from '@formgate/contracts';

export const unauthenticated = () => new AppError('UNAUTHENTICATED');
export const forbidden = (message?: string) => new AppError('FORBIDDEN', message);
