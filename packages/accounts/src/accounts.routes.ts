import type { ApiKeyDto, CreatedApiKeyDto, CurrentApiKeyDto, SessionDto, UserLookupDto } from '@formgate/contracts';
import { emailAddress } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, mountRoute } from '@formgate/kit';
import { type NextFunction, type Request, type Response, Router } from 'express';
import { API_KEY_SCOPES, type Caller, unavailableAsAppError } from './authenticate.ts';
import { type Auth, CLIENT_IP_HEADER } from './create-auth.ts';
import type { OrgEventRecorder } from './org-events/recorder.ts';
import { createFixedWindowLimiter } from './rate-limit.ts';
import { type ApiKeyRow, creatorOf, scopeOf } from './verify-api-key.ts';

declare global {
  namespace Express {
    interface Request {
      caller?: Caller;
    }
  }
}

const toKeyDto = (row: ApiKeyRow): ApiKeyDto => ({
  id: row.id,
  name: row.name,
  start: row.start,
  scope: scopeOf(row),
  createdAt: new Date(row.createdAt).toISOString(),
  lastUsedAt: row.lastRequest ? new Date(row.lastRequest).toISOString() : null,
  createdBy: creatorOf(row.metadata) ?? null,
});

const callerOf = (req: Request): Caller & { orgId: string } => {
  const caller = req.caller;
  if (!caller?.orgId) throw new AppError('UNAUTHENTICATED');
  return caller as Caller & { orgId: string };
};

/**
 * What the gateway answers itself: the session (§7 "session fetch"), the user lookup behind `/login/{email}`,
 * and the organization's API keys (shown once, stored hashed by better-auth, revocable).
 */
export function accountRoutes(auth: Auth, options: { lookupsPerMinute: number; record: OrgEventRecorder }) {
  const router = Router();
  const adapter = async () => (await auth.$context).adapter;
  const lookups = createFixedWindowLimiter({ max: options.lookupsPerMinute, windowMs: 60_000 });

  // The route table admits only sessions here; the gateway already resolved this one.
  mountRoute(router, API_ROUTES.getSession, (req, res) => {
    const caller = req.caller;
    if (caller?.via !== 'session') throw new AppError('UNAUTHENTICATED');
    const body: SessionDto = {
      user: { id: caller.userId, email: caller.email, name: caller.name, emailVerified: caller.emailVerified },
      session: { activeOrganizationId: caller.orgId, expiresAt: caller.sessionExpiresAt.toISOString() },
      roles: caller.roles,
    };
    res.json(body);
  });

  mountRoute(router, API_ROUTES.lookupUserByEmail, async (req, res) => {
    if (!lookups.take(String(req.headers[CLIENT_IP_HEADER])))
      throw new AppError('RATE_LIMITED', 'Too many lookups, retry in a minute');
    const email = emailAddress().safeParse(String(req.params.email).toLowerCase());
    if (!email.success) throw new AppError('INVALID_EMAIL');
    const user = await (await adapter()).findOne<{ id: string }>({
      model: 'user',
      where: [{ field: 'email', value: email.data }],
    });
    const body: UserLookupDto = { email: email.data, exists: user !== null };
    res.json(body);
  });

  mountRoute(router, API_ROUTES.getCurrentApiKey, (req, res) => {
    const caller = callerOf(req);
    if (caller.via !== 'api-key') throw new AppError('NOT_FOUND', 'This request is not made with an API key');
    const body: CurrentApiKeyDto = { id: caller.keyId, organizationId: caller.orgId, scope: caller.scope };
    res.json(body);
  });

  mountRoute(router, API_ROUTES.listApiKeys, async (req, res) => {
    const { orgId } = callerOf(req);
    const rows = await (await adapter()).findMany<ApiKeyRow>({
      model: 'apikey',
      where: [{ field: 'referenceId', value: orgId }],
      sortBy: { field: 'createdAt', direction: 'desc' },
    });
    res.json({ data: rows.map(toKeyDto) });
  });

  mountRoute(router, API_ROUTES.createApiKey, async (req, res) => {
    const caller = callerOf(req);
    if (caller.via !== 'session') throw new AppError('FORBIDDEN');
    const body = API_ROUTES.createApiKey.request.body.parse(req.body);
    const created = await auth.api.createApiKey({
      body: {
        name: body.name,
        organizationId: caller.orgId,
        userId: caller.userId,
        permissions: API_KEY_SCOPES[body.scope],
        metadata: { createdBy: caller.userId },
      },
    });
    const dto: CreatedApiKeyDto = { ...toKeyDto(created as unknown as ApiKeyRow), key: created.key };
    await options.record('api-key.created', {
      orgId: caller.orgId,
      actor: { userId: caller.userId, email: caller.email },
      keyId: dto.id,
      name: dto.name ?? '',
      scope: dto.scope,
    });
    res.status(201).json(dto);
  });

  mountRoute(router, API_ROUTES.deleteApiKey, async (req, res) => {
    const { orgId } = callerOf(req);
    const db = await adapter();
    const where = [
      { field: 'id', value: String(req.params.keyId) },
      { field: 'referenceId', value: orgId },
    ];
    const row = await db.findOne<ApiKeyRow>({ model: 'apikey', where });
    if (!row) throw new AppError('API_KEY_NOT_FOUND');
    await db.delete({ model: 'apikey', where });
    const caller = callerOf(req);
    await options.record('api-key.revoked', {
      orgId,
      actor: caller.via === 'session' ? { userId: caller.userId, email: caller.email } : null,
      keyId: row.id,
      name: row.name ?? '',
    });
    res.status(204).end();
  });

  router.use((err: unknown, _req: Request, _res: Response, next: NextFunction) => next(unavailableAsAppError(err)));
  return router;
}
