from judge_service.cli import main

main()
