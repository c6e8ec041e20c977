import type { Blueprint, CitationCheck, Operation } from './blueprint.js';
import { contentHash, type Contract } from './contract.js';
import type { CrashProbe } from './crash-probe.js';
import { FaultlineError } from './errors.js';
import { idempotencyKey, perSendKey } from './idempotency-key.js';
import type { Planner } from './planner.js';
import { META } from './protocol.js';
import type { RunVersions } from './records.js';
import { ScriptedPlanner } from './scripted-planner.js';
import type { RunRoles } from './run-roles.js';

const POLICY_VERSION = 'policy-gate@1';
/**
 * The run's fixed inputs, bound when a run starts or resumes: its id, contract, the plan in
 * force (operations by id, citations by tool, idempotency keys), the planner, the world's
 * tools and versions, and the hooks each call carries (credential meta, abort signal, crash
 * probes). Read-only to the other roles once bound, except that a written plan rebinds the
 * operations.
 */
export class RunBinding {
  private toolsHash: string | undefined;

  runId = '';
  contract!: Contract;

  /** The plan in force: the run's blueprint, or the last plan its planner wrote. */
  blueprint!: Blueprint;

  /** The blueprint the run was given, which its versions name (an objective-only run's is empty). */
  versionedBlueprint!: Blueprint;

  /** The blueprint's operations by id (ids are unique: the blueprint schema checks). */
  private readonly operationsById = new Map<string, Operation>();

  /** Citations with `each` by tool: they hold for every write to the tool (see `PreSendChecks.citationsFor`). */
  readonly toolCitations = new Map<string, CitationCheck[]>();
  planner!: Planner;

  /** The planner when it is the runtime's own undecorated {@link ScriptedPlanner}. */
  builtInPlanner: ScriptedPlanner | undefined;
  private sends = 0;
  plannerVersions = { model: '', prompt: '' };
  /** Idempotency keys of this run's operations, derived once each (see {@link bind}). */
  private readonly keys = new Map<string, string>();

  constructor(private readonly rt: RunRoles) {}

  /** The world's tools, listed once per instance; returns the hash of their schemas. */
  async loadTools(): Promise<string> {
    this.toolsHash ??= await this.rt.executor.loadTools();
    return this.toolsHash;
  }

  /** Refuses a blueprint naming a tool the world lacks or the contract does not authorize. */
  checkBlueprintTools(blueprint: Blueprint, contract: Contract): void {
    const issues: string[] = [];
    blueprint.operations.forEach((op, i) => {
      if (!this.rt.executor.hasTool(op.tool))
        issues.push(`operations[${i}].tool: the world has no tool "${op.tool}"`);
      if (!(op.tool in contract.authority.tools))
        issues.push(`operations[${i}].tool: "${op.tool}" is not in the contract's authority`);
    });
    if (issues.length > 0) {
      throw new FaultlineError(
        'invalid-input',
        `Invalid blueprint ${blueprint.id}: ${issues.join('; ')}`,
        { issues },
      );
    }
  }

  /** Binds a run: its id, contract, plan and planner (keys are reset; other roles' state is not). */
  bind(runId: string, contract: Contract, blueprint: Blueprint): void {
    this.runId = runId;
    this.contract = contract;
    this.versionedBlueprint = blueprint;
    this.bindOperations(blueprint);
    const decorate = this.rt.options.decoratePlanner;
    if (this.rt.options.planner) {
      this.planner = decorate ? decorate(this.rt.options.planner) : this.rt.options.planner;
      this.builtInPlanner = undefined;
    } else {
      const own = new ScriptedPlanner(blueprint);
      this.planner = decorate ? decorate(own) : own;
      // Only a planner this runtime built and nobody wrapped is trusted to answer in type.
      this.builtInPlanner = decorate ? undefined : own;
    }
    this.plannerVersions = { ...this.planner.versions };
  }

  /** The plan in force: its operations by id, their citations by tool, their keys. */
  bindOperations(blueprint: Blueprint): void {
    this.blueprint = blueprint;
    this.operationsById.clear();
    this.toolCitations.clear();
    this.keys.clear();
    const stableKeys = this.rt.safeguards.idempotency;
    for (const op of blueprint.operations) {
      this.operationsById.set(op.id, op);
      const each = op.citations.filter((c) => c.each !== undefined);
      if (each.length > 0)
        this.toolCitations.set(op.tool, [...(this.toolCitations.get(op.tool) ?? []), ...each]);
      // Derived in one sweep, off the write path: a key never changes within a run.
      if (stableKeys && op.kind === 'write')
        this.keys.set(op.id, idempotencyKey(this.runId, op.id));
    }
  }

  /** Call sites check `options.probe` first: an unarmed probe costs no await on the hot path. */
  async probe(name: CrashProbe, op: Operation, attempt: number): Promise<void> {
    await this.rt.options.probe?.(name, {
      runId: this.runId,
      operationId: op.id,
      tool: op.tool,
      attempt,
    });
  }

  /**
   * A wait's probe names the blueprint operation it is for: a check's read (`refund:precondition`)
   * waits for its write.
   */
  async probeWait(name: CrashProbe, operationId: string, attempt: number): Promise<void> {
    const id = operationId.split(':')[0] ?? operationId;
    await this.rt.options.probe?.(name, {
      runId: this.runId,
      operationId: id,
      tool: this.operation(id)?.tool ?? '',
      attempt,
    });
  }

  /** The metadata every call carries: the run's credential, run id and operation. */
  meta(operationId: string): Record<string, string> {
    return {
      [META.credential]: this.rt.options.credential.token,
      [META.runId]: this.runId,
      [META.operationId]: operationId,
    };
  }

  /** The harness's abort signal as a call option, when there is one. */
  signalOption(): { signal?: AbortSignal } {
    return this.rt.options.signal ? { signal: this.rt.options.signal } : {};
  }

  /** The idempotency key of a write: one per operation, or, without the safeguard, one per send. */
  keyFor(operationId: string): string {
    if (this.rt.safeguards.idempotency) {
      let key = this.keys.get(operationId);
      if (key === undefined) {
        key = idempotencyKey(this.runId, operationId);
        this.keys.set(operationId, key);
      }
      return key;
    }
    this.sends++;
    return perSendKey(this.runId, operationId, this.sends);
  }

  /** An operation of the plan in force, by id. */
  operation(id: string): Operation | undefined {
    return this.operationsById.get(id);
  }

  /** The versions a run is made under (contract, blueprint, model, prompt, policy, tool schemas). */
  currentVersions(toolsHash: string): RunVersions {
    return {
      contract: this.contract.version,
      contractHash: contentHash(this.contract),
      blueprint: this.versionedBlueprint.version,
      blueprintHash: contentHash(this.versionedBlueprint),
      model: this.planner.versions.model,
      prompt: this.planner.versions.prompt,
      policy: this.rt.options.policyVersion ?? POLICY_VERSION,
      toolSchemasHash: toolsHash,
    };
  }
}
