import { API_ROUTE_LIST } from '@formgate/contracts/routes';
import { describe, expect, it } from 'vitest';
import { createRouter } from '../src/routes.ts';

describe('the API route matcher', () => {
  const router = createRouter(API_ROUTE_LIST);

  it('finds the route of a method and path, with its parameters decoded; HEAD finds GET', () => {
    const found = router.find('GET', '/api/v1/forms/form%201');
    expect(found && 'route' in found && [found.route.path, found.params]).toEqual([
      '/api/v1/forms/:formId',
      { formId: 'form 1' },
    ]);
    const head = router.find('HEAD', '/api/v1/forms');
    expect(head && 'route' in head && head.route.method).toBe('GET');
  });

  it('answers the methods a known path has when asked another, and nothing for an unknown path', () => {
    expect(router.find('DELETE', '/api/v1/forms')).toEqual({ allow: ['GET', 'HEAD', 'POST'] });
    expect(router.find('PUT', '/api/v1/forms/f/submissions/s')).toEqual({ allow: ['GET', 'HEAD', 'PATCH', 'DELETE'] });
    expect(router.find('GET', '/api/v1/nothing-here')).toBeUndefined();
    // A path of its own is not a parameter of another: DELETE belongs to /notification-emails/:emailId.
    expect(router.find('OPTIONS', '/api/v1/notification-emails/verify')).toEqual({ allow: ['GET', 'HEAD'] });
    expect(router.find('OPTIONS', '/api/v1/notification-emails/an-id')).toEqual({ allow: ['DELETE'] });
  });
});
