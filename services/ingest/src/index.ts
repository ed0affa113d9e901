export * from './create-service.ts';
export * from './limits.ts';
export { altchaDifficulty, captchaEnv, captchaVerifyConfig } from './spam/captcha.ts';
