-- knobs.lua - driven by tests/window/smoke.sh under Xvfb: a race on the
-- stage, then every key event is printed; '[' halves the SMs and races
-- again. Prints what it sees so the smoke test can check it.
local sms = 2
local n = 96   -- a race of about 11 s at the default speed: long enough to press keys in
local k = simt.kernel("lessons/kernels/matmul_tiled16.s")
local function race()
  local g = simt.gpu{arch = "edu-tiny", sms = sms}
  local A = g:tensor{n, n, init = "random", seed = 1}
  local B = g:tensor{n, n, init = "random", seed = 2}
  local C = g:tensor{n, n}
  local r = g:launch(k, {grid = {n // 16, n // 16}, block = {16, 16}}, A, B, C, n)
  assert(C:allclose(simt.ref.matmul(A, B), 1e-4, 1e-4))
  print(string.format("race done: sms %d cycles %d", g.desc.sms, r.cycles))
  io.stdout:flush()
end
print("stage: " .. tostring(simt.on_stage()))
simt.say{en = "Smoke test: press keys.", zh = "冒烟测试：按键。"}
race()
while true do
  local ev = simt.pause()
  print("event " .. tostring(ev))
  io.stdout:flush()
  if ev == nil or ev == "quit" then break end
  if ev == "sms_half" then sms = math.max(1, sms // 2); race() end
  if ev == "sms_double" then sms = sms * 2; race() end
end
