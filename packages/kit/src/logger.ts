import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * JSON logs. Headers that carry credentials and anything that could hold submission contents are redacted;
 * code must still never pass submission fields to the logger.
 */
export function createLogger(opts: { level: string; name: string; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: opts.level,
      name: opts.name,
      base: { service: opts.name },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-api-key"]',
          'req.headers["x-formgate-identity"]',
          'req.headers["stripe-signature"]',
          'res.headers["set-cookie"]',
          '*.password',
          '*.token',
          '*.secret',
          '*.fields',
          '*.value',
        ],
        censor: '[redacted]',
      },
    },
    opts.destination,
  );
}
