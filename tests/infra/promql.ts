import { parser } from '@prometheus-io/lezer-promql';

/**
 * A PromQL expression read with Prometheus' own grammar (@prometheus-io/lezer-promql): its syntax errors, the
 * metrics it selects with the labels it names, and the mistakes the grammar accepts but Prometheus rejects when it
 * loads the rule (a range function given an instant vector) or evaluates into nonsense (`histogram_quantile` over
 * buckets summed without `le`).
 */
export interface PromQLExpr {
  /** Where the grammar found no valid expression (an error node `⚠`), with the text around it. */
  syntaxErrors: string[];
  /** Each vector selector: its metric and the labels its `{...}` matchers name. */
  selectors: { metric: string; labels: string[] }[];
  /** Each `by` / `without` / `on` / `ignoring` / `group_*` clause with the metrics of the expression it applies to. */
  groupings: { labels: string[]; metrics: string[] }[];
  /** Mistakes of types and of histograms, one sentence each. */
  problems: string[];
}

type Node = ReturnType<typeof parser.parse>['topNode'];

/** Functions whose argument at this index is a range vector (`x[5m]` or a subquery). */
const RANGE_ARGUMENT: Record<string, number> = Object.fromEntries([
  ...['rate', 'irate', 'increase', 'delta', 'idelta', 'deriv', 'changes', 'resets'].map((f) => [f, 0]),
  ...['predict_linear', 'double_exponential_smoothing', 'holt_winters'].map((f) => [f, 0]),
  ...['avg', 'min', 'max', 'sum', 'count', 'stddev', 'stdvar', 'last', 'present', 'absent', 'mad'].map((f) => [
    `${f}_over_time`,
    0,
  ]),
  ['quantile_over_time', 1],
]);

const unquote = (literal: string) => literal.slice(1, -1);

/** The nodes named `name` strictly inside `node`, in document order. */
function descendants(node: Node, name: string): Node[] {
  const found: Node[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.name === name) found.push(child);
    found.push(...descendants(child, name));
  }
  return found;
}

export function readPromQL(expr: string): PromQLExpr {
  const top = parser.parse(expr).topNode;
  const text = (n: Node) => expr.slice(n.from, n.to);
  const syntaxErrors: string[] = [];
  top.cursor().iterate((c) => {
    if (c.type.isError) syntaxErrors.push(`at ${c.from}: …${expr.slice(Math.max(0, c.from - 20), c.from + 20)}…`);
  });
  const selectors = descendants(top, 'VectorSelector').map((selector) => ({
    metric: metricOf(selector, text),
    labels: argumentsOf(selector.getChild('LabelMatchers')).map((m) => labelNameOf(m, text)),
  }));
  const groupings = descendants(top, 'GroupingLabels').map((clause) => {
    let scope: Node | null = clause.parent;
    while (scope && scope.name !== 'AggregateExpr' && scope.name !== 'BinaryExpr') scope = scope.parent;
    const metrics = scope ? descendants(scope, 'VectorSelector').map((v) => metricOf(v, text)) : [];
    return { labels: labelsIn(clause, text), metrics };
  });
  const problems = [
    ...selectors.filter((v) => !v.metric).map(() => 'a selector names no metric ({__name__=~…} cannot be checked)'),
    ...descendants(top, 'FunctionCall').flatMap((call) => callProblems(call, text)),
  ];
  return { syntaxErrors, selectors, groupings, problems };
}

type Text = (n: Node) => string;

const metricOf = (selector: Node, text: Text) => {
  const name = selector.getChild('Identifier');
  return name ? text(name) : '';
};
/** `a="x"` or `"a"="x"`: the label's name. */
const labelNameOf = (matcher: Node, text: Text) => {
  const plain = matcher.getChild('LabelName');
  const quoted = matcher.getChild('QuotedLabelName');
  return plain ? text(plain) : quoted ? unquote(text(quoted)) : '';
};
/** The names in a `(a, "b")` list of `by`, `without`, `on`, `ignoring` or `group_*`. */
const labelsIn = (clause: Node | null | undefined, text: Text) =>
  clause
    ? [
        ...clause.getChildren('LabelName').map(text),
        ...clause.getChildren('QuotedLabelName').map((q) => unquote(text(q))),
      ]
    : [];

/** The direct children of `node` that are expressions (no error nodes). */
function argumentsOf(node: Node | null): Node[] {
  const found: Node[] = [];
  for (let c = node?.firstChild; c; c = c.nextSibling) if (!c.type.isError) found.push(c);
  return found;
}

function callProblems(call: Node, text: Text): string[] {
  const fn = text(call.getChild('FunctionIdentifier') as Node);
  const args = argumentsOf(call.getChild('FunctionCallBody'));
  const index = RANGE_ARGUMENT[fn];
  const arg = index === undefined ? undefined : args[index];
  const problems: string[] = [];
  if (index !== undefined && arg?.name !== 'MatrixSelector' && arg?.name !== 'SubqueryExpr')
    problems.push(`${fn}() takes a range vector (x[5m]), got ${arg ? text(arg) : 'nothing'}`);
  if (fn === 'histogram_quantile') problems.push(...bucketsKeepingLe(args[1], text));
  return problems;
}

/** Every aggregation of buckets under `histogram_quantile` keeps `le`, or the quantile is computed over nothing. */
function bucketsKeepingLe(arg: Node | undefined, text: Text): string[] {
  if (!arg) return ['histogram_quantile() takes two arguments'];
  const aggregations = [arg, ...descendants(arg, 'AggregateExpr')].filter((n) => n.name === 'AggregateExpr');
  return aggregations.flatMap((agg) => {
    const modifier = agg.getChild('AggregateModifier');
    const labels = labelsIn(modifier?.getChild('GroupingLabels'), text);
    const keepsLe = modifier?.getChild('By') ? labels.includes('le') : !!modifier && !labels.includes('le');
    return keepsLe ? [] : [`histogram_quantile over ${text(agg)}: the aggregation drops le`];
  });
}

/** Node types that stand for a scalar or a string, never a vector (their labels: none). */
const LITERALS = new Set(['NumberDurationLiteral', 'StringLiteral']);
/** Expressions whose value has the labels of the one expression inside them. */
const WRAPPERS = new Set([
  'ParenExpr',
  'MatrixSelector',
  'SubqueryExpr',
  'OffsetExpr',
  'StepInvariantExpr',
  'UnaryExpr',
]);

/**
 * The labels of `expr`'s result series (what an alert's `{{ $labels.x }}` can read): `null` when they cannot be
 * told (a series of another exporter, `label_replace`). `labelsOf` gives a selected metric's labels, or undefined.
 */
export function resultLabels(expr: string, labelsOf: (metric: string) => string[] | undefined): Set<string> | null {
  const text = (n: Node) => expr.slice(n.from, n.to);
  const of = (node: Node | null | undefined): Set<string> | null => {
    if (!node || LITERALS.has(node.name)) return new Set();
    if (node.name === 'PromQL' || WRAPPERS.has(node.name))
      return of(argumentsOf(node).find((c) => c.name !== 'UnaryOp'));
    if (node.name === 'VectorSelector') {
      const labels = labelsOf(metricOf(node, text));
      return labels ? new Set(labels) : null;
    }
    // The operands are the first and the last child (operator and modifiers between): a vector side's labels.
    if (node.name === 'BinaryExpr')
      return node.firstChild && LITERALS.has(node.firstChild.name) ? of(node.lastChild) : of(node.firstChild);
    if (node.name === 'AggregateExpr') return aggregateLabels(node, text, of);
    if (node.name === 'FunctionCall') return callLabels(node, text, of);
    return null;
  };
  return of(parser.parse(expr).topNode);
}

type LabelsOf = (node: Node | null | undefined) => Set<string> | null;
const without = (labels: Set<string> | null, drop: string[]) =>
  labels && new Set([...labels].filter((l) => !drop.includes(l)));

function aggregateLabels(node: Node, text: Text, of: LabelsOf): Set<string> | null {
  const modifier = node.getChild('AggregateModifier');
  const grouping = labelsIn(modifier?.getChild('GroupingLabels'), text);
  const operand = argumentsOf(node.getChild('FunctionCallBody')).at(-1);
  if (['topk', 'bottomk', 'limitk', 'limit_ratio'].includes(text(node.getChild('AggregateOp') as Node)))
    return of(operand);
  return modifier?.getChild('Without') ? without(of(operand), grouping) : new Set(grouping);
}

function callLabels(node: Node, text: Text, of: LabelsOf): Set<string> | null {
  const fn = text(node.getChild('FunctionIdentifier') as Node);
  const args = argumentsOf(node.getChild('FunctionCallBody'));
  if (['label_replace', 'label_join'].includes(fn)) return null;
  if (['vector', 'time', 'scalar', 'absent', 'absent_over_time', 'pi'].includes(fn)) return new Set();
  if (fn === 'histogram_quantile') return without(of(args[1]), ['le']);
  return of(args.find((a) => !LITERALS.has(a.name)));
}
