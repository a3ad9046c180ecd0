// Empty: the submodule `os.log` exists only so that `import os.log` resolves.
