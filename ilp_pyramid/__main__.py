from ilp_pyramid.cli import main

main()
