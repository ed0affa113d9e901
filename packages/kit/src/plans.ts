import { readFileSync } from 'node:fs';
import { DEFAULT_PLANS, type Plan, type PlansFile, parsePlansFile } from '@formgate/contracts';

/** The plans in force and the one every organization without a subscription is on. */
export interface PlanCatalog extends PlansFile {
  byId(id: string): Plan | undefined;
  /** The plan `id` names, or the default plan when it names none (a plan removed from the file). */
  resolve(id: string | null | undefined): Plan;
}

export function planCatalog(file: PlansFile): PlanCatalog {
  const byId = new Map(file.plans.map((p) => [p.id, p]));
  const fallback = byId.get(file.defaultPlan) as Plan;
  return {
    ...file,
    byId: (id) => byId.get(id),
    resolve: (id) => (id ? byId.get(id) : undefined) ?? fallback,
  };
}

/**
 * The plans of `PLANS_FILE`, or the defaults when it is unset. A file that cannot be read or parsed stops the boot
 * with every problem listed.
 */
export function loadPlans(path: string | undefined): PlanCatalog {
  if (!path) return planCatalog(DEFAULT_PLANS);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`PLANS_FILE ${path} cannot be read: ${(err as Error).message}`);
  }
  const parsed = parsePlansFile(text);
  if (!parsed.ok)
    throw new Error(`PLANS_FILE ${path} is invalid:\n${parsed.problems.map((p) => `  - ${p}`).join('\n')}`);
  return planCatalog(parsed.plans);
}
