# bash completion for magus                              -*- shell-script -*-
# Install as /usr/share/bash-completion/completions/magus.

_magus()
{
	local cur prev verb i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}

	case $prev in
	-C | --root) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-o | --output) COMPREPLY=($(compgen -W 'text json' -- "$cur")); return ;;
	--platform) COMPREPLY=($(compgen -W 'linux/amd64 linux/arm64 linux/arm/v7' -- "$cur")); return ;;
	--container-api) COMPREPLY=($(compgen -W 'unix://' -- "$cur")); return ;;
	esac

	# The verb is the first word that is not a global flag or its value.
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-C | --root | --config | --platform | --container-api | -o) ((i++)) ;;
		-*) ;;
		*) verb=${COMP_WORDS[i]}; break ;;
		esac
	done

	if [[ -z $verb ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '-C --root --config --sandbox=off
				--sandbox=best-effort --sandbox=required --platform
				--print-request --fetch --container-api -o -v
				--version --help --exec-path' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(magus help 2>/dev/null |
				awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')" -- "$cur"))
		fi
		return
	fi
	case $verb in
	help) COMPREPLY=($(compgen -W "$(magus help 2>/dev/null |
		awk '/^verbs:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')" -- "$cur")) ;;
	explain) COMPREPLY=($(compgen -W "$(magus explain 2>/dev/null | awk '{ print $1 }')" -- "$cur")) ;;
	config) COMPREPLY=($(compgen -W 'list' -- "$cur")) ;;
	self)
		if [[ $prev == self ]]; then
			COMPREPLY=($(compgen -W 'fetch' -- "$cur"))
		elif [[ $prev == fetch ]]; then
			COMPREPLY=($(compgen -W 'linux/amd64 linux/arm64' -- "$cur"))
		fi ;;
	run) [[ $prev == run ]] && COMPREPLY=($(compgen -W "$(magus config list 2>/dev/null |
		sed -n 's/^[^	]*	targets\.\(.*\)\.run=.*/\1/p' | sort -u)" -- "$cur")) ;;
	queue)
		if [[ $prev == queue ]]; then
			COMPREPLY=($(compgen -W 'gate' -- "$cur"))
		elif [[ $prev == gate && $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--sandbox=best-effort --sandbox=required --' -- "$cur"))
		fi
		;;
	clean) COMPREPLY=($(compgen -W '--platform --all --dry-run' -- "$cur")) ;;
	esac
} &&
	complete -F _magus magus
