import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../runtime/errors.js';
import { BUILT_IN_SCENARIOS } from '../../scenarios/library/index.js';
import { partialRefund } from '../../scenarios/library/refunds/partial-refund.js';
import { checkScenario, loadScenarioFile } from '../../scenarios/load.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { tempDir } from '../support/cli.js';

/** A scenario file holding the partial refund, changed by `change`. */
function file(change: (scenario: Scenario) => void): string {
  const scenario = structuredClone(partialRefund);
  scenario.id = 'mine/refund';
  change(scenario);
  const path = join(tempDir('load'), 'mine.json');
  writeFileSync(path, JSON.stringify(scenario));
  return path;
}

async function refusal(path: string): Promise<string> {
  const error = await loadScenarioFile(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidInputError);
  return (error as Error).message;
}

describe('loading a scenario file checks it against its world', () => {
  it('accepts every built-in scenario', () => {
    for (const scenario of BUILT_IN_SCENARIOS) {
      expect(() => {
        checkScenario(scenario);
      }).not.toThrow();
    }
  });

  it('loads the unchanged scenario', async () => {
    expect((await loadScenarioFile(file(() => undefined))).map((s) => s.id)).toEqual([
      'mine/refund',
    ]);
  });

  it('refuses a step calling a tool the world lacks', async () => {
    const path = file((s) => {
      s.blueprint.operations[1]!.tool = 'issue_refnd';
    });
    expect(await refusal(path)).toMatch(
      /^Invalid scenario file .*mine\.json \(\(file\)\): blueprint\.operations\[1\]\.tool: world refunds has no tool "issue_refnd" \(it has: /,
    );
  });

  it('refuses a $ref to an operation the blueprint lacks', async () => {
    const path = file((s) => {
      s.blueprint.operations[1]!.args.amount_cents = { $ref: 'ordr.total_cents' };
    });
    expect(await refusal(path)).toContain(
      'blueprint.operations[1] (refund): $ref "ordr" names no operation of the blueprint',
    );
  });

  it('refuses a contract allowing a tool the world lacks', async () => {
    const path = file((s) => {
      s.contract.authority.tools.wire_money = { ...s.contract.authority.tools.issue_refund! };
    });
    expect(await refusal(path)).toContain(
      'contract.authority.tools.wire_money: world refunds has no tool "wire_money"',
    );
  });

  it('refuses an unknown world, naming the ones there are', async () => {
    const path = file((s) => {
      s.world.name = 'bank';
    });
    expect(await refusal(path)).toContain('world.name: unknown world "bank" (known: refunds, ');
  });
});
