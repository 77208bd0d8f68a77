-- wrk: every request starts a conversation of the loop flow for one of the visitors whose tokens
-- are in $ROCKET_BENCH_TOKENS (separated by spaces). Run the server with the per-address limits
-- lifted (one machine plays every client). The request's bytes are made once per thread.
local start = nil

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 100000)
  local tokens = {}
  for t in string.gmatch(os.getenv("ROCKET_BENCH_TOKENS") or "", "%S+") do tokens[#tokens + 1] = t end
  local visitor = tokens[math.random(1, #tokens)]
  start = wrk.format("POST", "/v1/conversations", {["Content-Type"] = "application/json", ["Rocket-Visitor"] = visitor},
    '{"flow": "nope", "reducedMotion": true}')
end

function request()
  return start
end
