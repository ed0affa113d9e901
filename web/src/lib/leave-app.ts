/**
 * Leaving the app for another site (Stripe's checkout and billing portal). One object so component tests, whose
 * jsdom cannot navigate, can watch where the app would go (`vi.spyOn(leaveApp, 'assign')`).
 */
export const leaveApp = {
  assign(url: string) {
    window.location.assign(url);
  },
};
