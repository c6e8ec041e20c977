import { BUILT_IN_SCENARIOS, defineScenario } from 'faultline';

const base = BUILT_IN_SCENARIOS.find((s) => s.id === 'crm/update-contact');
if (!base) throw new Error('crm/update-contact is not in the library');

/** A user's scenario module: the library's phone update under the user's own id, faults off. */
export const myUpdate = defineScenario({ ...base, id: 'mine/update-contact', faultPlans: [] });
