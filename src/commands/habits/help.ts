// The root --help's list of kubectl's and virtctl's spellings vconsole takes, each with what it
// stands for here: one place, so every alias is listed where a newcomer from those tools looks.
export const HABITS_HELP = `
Coming from virtctl and kubectl:
  vconsole vnc VM                       open --type vnc VM: a viewer on its VNC console
  vconsole vnc VM --proxy-only          proxy --type vnc VM: the JSON line holds virtctl's "port"
  vnc --address ADDR                    --listen ADDR
  vnc --vnc-type T, --vnc-path P        --viewer T, --viewer P
  vconsole console VM --timeout 5       console VM --wait 5m (virtctl counts minutes)
  -v N, --v=N                           kubectl's log levels: 4 and up is --verbose
  list -o json|yaml|wide|name           also on viewers; --json is -o json
  --viewer vncviewer, virt-viewer, ...  a viewer's program name picks that viewer
  source <(vconsole completion bash)    Tab completes commands, flags and VM names (zsh, fish too)`;
