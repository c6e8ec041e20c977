import { z } from 'zod';

/**
 * The retail store's tool contract, argument names as the benchmark's tools have them
 * (snake_case, order ids with their leading `#`). Results are objects (MCP structured content),
 * records as the store keeps them. Schemas stay permissive where the store itself gives a typed
 * refusal (an unknown cancel reason is `invalid_argument` from the store), so agents see the
 * error class.
 */
const addressFields = {
  address1: z.string(),
  address2: z.string(),
  city: z.string(),
  state: z.string(),
  country: z.string(),
  zip: z.string(),
};

export const findUserByEmailInput = z.object({ email: z.string() });
export const findUserByNameZipInput = z.object({
  first_name: z.string(),
  last_name: z.string(),
  zip: z.string(),
});
export const userIdOutput = z.object({ user_id: z.string() });

export const userIdInput = z.object({ user_id: z.string() });
export const orderIdInput = z.object({ order_id: z.string() });
export const productIdInput = z.object({ product_id: z.string() });

/** Records as the store keeps them (their fields are the benchmark's; see data.ts). */
export const userOutput = z.looseObject({});
export const orderOutput = z.looseObject({});
export const productOutput = z.looseObject({});
export const productTypesOutput = z.object({ product_types: z.record(z.string(), z.string()) });

export const calculateInput = z.object({ expression: z.string() });
export const calculateOutput = z.object({ result: z.string() });

export const cancelInput = z.object({ order_id: z.string(), reason: z.string() });
export const modifyItemsInput = z.object({
  order_id: z.string(),
  item_ids: z.array(z.string()),
  new_item_ids: z.array(z.string()),
  payment_method_id: z.string(),
});
export const modifyAddressInput = z.object({ order_id: z.string(), ...addressFields });
export const modifyPaymentInput = z.object({ order_id: z.string(), payment_method_id: z.string() });
export const modifyUserAddressInput = z.object({ user_id: z.string(), ...addressFields });
export const returnInput = z.object({
  order_id: z.string(),
  item_ids: z.array(z.string()),
  payment_method_id: z.string(),
});
export const exchangeInput = modifyItemsInput;

export const transferInput = z.object({ summary: z.string() });
export const transferOutput = z.object({ transferred: z.boolean(), ticket: z.string() });
export const respondInput = z.object({ message: z.string().min(1) });
export const respondOutput = z.object({ said: z.boolean(), message_id: z.string() });
