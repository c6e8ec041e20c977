import type { Scenario } from '../../scenario.js';
import { droneInspectionMarket } from './drone-inspection-market.js';
import { heatPumpShare } from './heat-pump-share.js';
import { lfpBatteryShare } from './lfp-battery-share.js';
import { payrollVendorDiligence } from './payroll-vendor-diligence.js';
import { ppiClopidogrel } from './ppi-clopidogrel.js';
import { warehouseRobotPayback } from './warehouse-robot-payback.js';

/** The research world's scenarios, in the order `faultline run` runs them. */
export const RESEARCH_SCENARIOS: readonly Scenario[] = [
  heatPumpShare,
  droneInspectionMarket,
  lfpBatteryShare,
  warehouseRobotPayback,
  ppiClopidogrel,
  payrollVendorDiligence,
];
